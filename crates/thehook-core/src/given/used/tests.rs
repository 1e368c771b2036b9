use std::collections::HashMap;
use std::path::Path;

use serde_json::json;

use super::*;
use crate::transcript::{Entry, Role, ToolKind, ToolResult};

/// An absolute project root on any machine (nothing is read from it).
fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("project")
}

fn under_root(rel: &str) -> String {
    root().join(rel).display().to_string()
}

fn call(at: &str, name: &str, kind: ToolKind, input: serde_json::Value) -> Entry {
    Entry {
        line: 1,
        role: Role::Assistant,
        timestamp: Some(at.into()),
        sidechain: false,
        blocks: vec![Block::ToolCall(ToolCall {
            id: None,
            name: name.into(),
            kind,
            input,
            result: Some(ToolResult {
                text: String::new(),
                is_error: false,
            }),
        })],
    }
}

fn read(at: &str, path: &str) -> Entry {
    call(
        at,
        "Read",
        ToolKind::new(ToolRole::Looks, ToolShape::Read),
        json!({ "file_path": path }),
    )
}

fn block(hook: Hook, at: &str, cited: &[&str]) -> GivenBlock {
    GivenBlock {
        hook,
        at: Some(at.into()),
        cited: cited.iter().map(|c| c.to_string()).collect(),
    }
}

fn about(pairs: &[(&str, &[&str])]) -> HashMap<String, Related> {
    pairs
        .iter()
        .map(|(cited, files)| {
            let files = files.iter().map(|f| f.to_string()).collect();
            (cited.to_string(), Related { files })
        })
        .collect()
}

fn used_of(blocks: &[UsedBlock]) -> Vec<(&str, Option<UsedHow>)> {
    blocks
        .iter()
        .flat_map(|b| &b.lines)
        .map(|l| (l.cited.as_str(), l.used.as_ref().map(|e| e.how)))
        .collect()
}

#[test]
fn a_line_is_used_when_a_file_it_names_is_read_or_edited_afterwards() {
    let transcript = Transcript {
        cwd: Some(root().display().to_string()),
        entries: vec![
            read("2026-03-01T10:00:05Z", &under_root("src/auth/login.rs")),
            call(
                "2026-03-01T10:00:09Z",
                "Edit",
                ToolKind::new(ToolRole::Writes, ToolShape::Edit),
                json!({ "file_path": "src/db.rs" }),
            ),
        ],
        ..Transcript::default()
    };
    let given = [block(
        Hook::Start,
        "2026-03-01T10:00:00Z",
        &[
            ".thehook/knowledge/conventions.md:3",
            ".thehook/sessions/a.md:5",
            ".thehook/knowledge/conventions.md:9",
        ],
    )];
    let related = about(&[
        (".thehook/knowledge/conventions.md:3", &["login.rs"]),
        (".thehook/sessions/a.md:5", &["src/db.rs", "README.md"]),
        (".thehook/knowledge/conventions.md:9", &["src/other.rs"]),
    ]);
    let (blocks, left_out) = mark(&given, &transcript, &root(), &related);
    assert_eq!(left_out, 0);
    assert_eq!(
        used_of(&blocks),
        [
            (".thehook/knowledge/conventions.md:3", Some(UsedHow::Read)),
            (".thehook/sessions/a.md:5", Some(UsedHow::Edited)),
            (".thehook/knowledge/conventions.md:9", None),
        ]
    );
    let evidence = blocks[0].lines[0].used.as_ref().unwrap();
    assert_eq!(evidence.tool, "Read");
    assert_eq!(evidence.target, "src/auth/login.rs");
    assert_eq!(evidence.at.as_deref(), Some("2026-03-01T10:00:05Z"));
}

#[test]
fn a_call_before_the_line_was_given_does_not_count() {
    let transcript = Transcript {
        cwd: Some(root().display().to_string()),
        entries: vec![read("2026-03-01T10:00:05Z", "src/db.rs")],
        ..Transcript::default()
    };
    let given = [block(
        Hook::File {
            path: "src/db.rs".into(),
        },
        "2026-03-01T10:00:06Z",
        &[".thehook/sessions/a.md:5"],
    )];
    let related = about(&[(".thehook/sessions/a.md:5", &["src/db.rs"])]);
    let (blocks, _) = mark(&given, &transcript, &root(), &related);
    assert_eq!(used_of(&blocks), [(".thehook/sessions/a.md:5", None)]);
}

#[test]
fn opening_the_markdown_a_shell_command_or_an_mcp_fetch_counts() {
    let shell = ToolKind::new(ToolRole::Runs, ToolShape::Shell);
    let mut fetch = call(
        "2026-03-01T10:00:03Z",
        "mcp__thehook__recall",
        ToolKind::default(),
        json!({ "query": "retries" }),
    );
    if let Block::ToolCall(c) = &mut fetch.blocks[0] {
        c.result.as_mut().unwrap().text =
            "- [gotcha] retries double (.thehook/knowledge/gotchas.md:4)".into();
    }
    let transcript = Transcript {
        cwd: Some(under_root("src")),
        entries: vec![
            read("2026-03-01T10:00:01Z", "../.thehook/sessions/b.md"),
            call(
                "2026-03-01T10:00:02Z",
                "Bash",
                shell,
                json!({ "command": "cargo test -p core -- src/net/retry.rs" }),
            ),
            fetch,
        ],
        ..Transcript::default()
    };
    let given = [block(
        Hook::Prompt,
        "2026-03-01T10:00:00Z",
        &[
            ".thehook/sessions/b.md:2",
            ".thehook/knowledge/notes.md:7",
            ".thehook/knowledge/gotchas.md:4",
        ],
    )];
    let related = about(&[(".thehook/knowledge/notes.md:7", &["src/net/retry.rs"])]);
    let (blocks, _) = mark(&given, &transcript, &root(), &related);
    assert_eq!(
        used_of(&blocks),
        [
            (".thehook/sessions/b.md:2", Some(UsedHow::Opened)),
            (".thehook/knowledge/notes.md:7", Some(UsedHow::Ran)),
            (".thehook/knowledge/gotchas.md:4", Some(UsedHow::Fetched)),
        ]
    );
}

#[test]
fn a_session_given_more_than_the_bound_keeps_the_first_and_counts_the_rest() {
    let cited: Vec<String> = (0..MOST_LINES_KEPT + 7)
        .map(|n| format!(".thehook/sessions/s.md:{n}"))
        .collect();
    let cited: Vec<&str> = cited.iter().map(String::as_str).collect();
    let given = [block(Hook::Start, "2026-03-01T10:00:00Z", &cited)];
    let (blocks, left_out) = mark(&given, &Transcript::default(), &root(), &HashMap::new());
    assert_eq!(blocks[0].lines.len(), MOST_LINES_KEPT);
    assert_eq!(left_out, 7);
}
