use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::list::list_sources;
use super::*;
use crate::agents::read::load;
use crate::agents::read::tests::{corpus, transcript_files};
use crate::agents::Agent;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts")
}

fn snapshot_name(path: &Path) -> String {
    path.strip_prefix(fixtures())
        .unwrap()
        .to_string_lossy()
        .replace('/', "__")
        .trim_end_matches(".jsonl")
        .to_string()
}

fn source(path: &Path) -> Source {
    let t = load(path).unwrap();
    Source {
        agent: t.format.and_then(Agent::named).unwrap_or(Agent::Gemini),
        path: path.to_path_buf(),
        id: t.session_id.unwrap_or_default(),
        failed_copy: false,
    }
}

fn insta_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

#[test]
fn compact_forms_of_real_transcripts() {
    let settings = insta_settings();
    for path in transcript_files(&fixtures()) {
        let t = open(&source(&path)).unwrap();
        let reading = read(&t, &ReadOptions::default());
        assert_eq!(reading.shown, reading.total, "{}", path.display());
        let name = format!("compact__{}", snapshot_name(&path));
        settings.bind(|| insta::assert_snapshot!(name, reading.text));
    }
}

#[test]
fn full_forms_of_real_transcripts() {
    let settings = insta_settings();
    for path in transcript_files(&fixtures()) {
        let t = open(&source(&path)).unwrap();
        // The first lines, and every tool call among the first 60.
        let tools: Vec<String> = lines(&t)
            .iter()
            .take(60)
            .filter(|l| matches!(l.part, Part::Tool(_)))
            .map(|l| l.number.to_string())
            .collect();
        let spec = format!("1-6,{}", tools.join(","));
        let selection = Selection::parse(spec.trim_end_matches(',')).unwrap();
        let reading = read(
            &t,
            &ReadOptions {
                lines: Some(selection),
                ..ReadOptions::default()
            },
        );
        let name = format!("full__{}", snapshot_name(&path));
        settings.bind(|| insta::assert_snapshot!(name, reading.text));
    }
}

#[test]
fn listing_of_real_transcripts_with_subagents_and_titles() {
    // Copies with fixed file times: Cursor transcripts carry no times, so
    // their file's time stands in.
    let dir = tempfile::tempdir().unwrap();
    let sources: Vec<Source> = transcript_files(&fixtures())
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let copy = dir.path().join(format!(
                "{i:02}-{}",
                p.file_name().unwrap().to_string_lossy()
            ));
            std::fs::copy(p, &copy).unwrap();
            let time = std::time::UNIX_EPOCH
                + std::time::Duration::from_secs(1_767_000_000 + i as u64 * 3600);
            std::fs::File::options()
                .write(true)
                .open(&copy)
                .unwrap()
                .set_modified(time)
                .unwrap();
            Source {
                path: copy,
                ..source(p)
            }
        })
        .collect();
    let codex = sources
        .iter()
        .find(|s| s.agent == Agent::Codex)
        .unwrap()
        .id
        .clone();
    let titles = HashMap::from([(
        codex.clone(),
        "Captured: fix the rollout parser".to_string(),
    )]);
    let listing = list_sources(
        sources,
        &titles,
        // 0: every session.
        &ListOptions::new(None, None, Some(0)),
        &mut Default::default(),
    );
    // Newest first.
    let starts: Vec<_> = listing
        .sessions
        .iter()
        .filter_map(|s| s.started.clone())
        .collect();
    let mut sorted = starts.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(starts, sorted);
    let captured = listing.sessions.iter().find(|s| s.id == codex).unwrap();
    assert_eq!(captured.summary, "Captured: fix the rollout parser");
    insta_settings()
        .bind(|| insta::assert_snapshot!("listing__fixtures", render_listing(&listing)));

    let limited = list_sources(
        listing
            .sessions
            .iter()
            .map(|l| Source {
                agent: l.agent,
                path: l.path.clone(),
                id: l.id.clone(),
                failed_copy: false,
            })
            .collect(),
        &titles,
        &ListOptions::new(Some(Agent::Cursor), None, Some(2)),
        &mut Default::default(),
    );
    assert_eq!(limited.sessions.len(), 2);
    assert!(limited.sessions.iter().all(|s| s.agent == Agent::Cursor));
    assert!(limited.more > 0);
    assert!(render_listing(&limited).ends_with("older (--limit 0 lists all)\n"));
}

#[test]
fn a_listing_asked_for_no_limit_gets_the_front_doors_default() {
    // The CLI and MCP alike: the one default of the front door.
    let limit = crate::front_door::DEFAULT_SESSION_LIMIT;
    assert_eq!(ListOptions::new(None, None, None).limit, limit);
    assert_eq!(ListOptions::parse(None, None, None).unwrap().limit, limit);
    assert_eq!(ListOptions::new(None, None, Some(0)).limit, 0);
}

#[test]
fn grep_keeps_matching_lines_in_either_form() {
    let path = fixtures().join("claude-code/marot-short.jsonl");
    let t = open(&source(&path)).unwrap();
    let all = read(&t, &ReadOptions::default());
    let grep = Some(regex::Regex::new("(?i)bash").unwrap());
    let compact = read(
        &t,
        &ReadOptions {
            grep: grep.clone(),
            ..ReadOptions::default()
        },
    );
    assert!(
        compact.shown > 0 && compact.shown < all.total,
        "{}",
        compact.text
    );
    let full = read(
        &t,
        &ReadOptions {
            grep,
            full: true,
            ..ReadOptions::default()
        },
    );
    assert_eq!(full.shown, compact.shown);
    // Compact lines keep their numbers, so a match can be read in full.
    for line in compact.text.lines().skip(1) {
        let n: usize = line.split('|').next().unwrap().parse().unwrap();
        let one = read(
            &t,
            &ReadOptions {
                lines: Some(Selection::parse(&n.to_string()).unwrap()),
                ..ReadOptions::default()
            },
        );
        assert_eq!(one.shown, 1);
        assert!(one.text.to_lowercase().contains("bash"), "{}", one.text);
    }
}

#[test]
fn secrets_are_redacted_in_every_form() {
    let samples = crate::text::redact::samples::samples();
    let mut records = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let text = serde_json::to_string(&s.text).unwrap();
        records.push(format!(
            r#"{{"type":"user","uuid":"u{i}","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:00:{:02}Z","message":{{"role":"user","content":{text}}}}}"#,
            i % 60
        ));
        records.push(format!(
            r#"{{"type":"assistant","uuid":"a{i}","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:01:00Z","message":{{"id":"m{i}","role":"assistant","content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":{text}}}}}]}}}}"#
        ));
        records.push(format!(
            r#"{{"type":"user","uuid":"r{i}","sessionId":"s","cwd":"/p","timestamp":"2026-03-01T10:02:00Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":{text}}}]}}}}"#
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, records.join("\n")).unwrap();
    let t = open(&source(&path)).unwrap();
    let forms = [
        read(&t, &ReadOptions::default()).text,
        read(
            &t,
            &ReadOptions {
                full: true,
                ..ReadOptions::default()
            },
        )
        .text,
        read(
            &t,
            &ReadOptions {
                lines: Some(Selection::parse("1-5").unwrap()),
                ..ReadOptions::default()
            },
        )
        .text,
    ];
    for s in &samples {
        for form in &forms {
            assert!(!form.contains(&s.secret), "{} leaked:\n{form}", s.kind);
        }
        // Grepping for a secret finds nothing.
        let grep = regex::Regex::new(&regex::escape(&s.secret)).unwrap();
        assert_eq!(
            read(
                &t,
                &ReadOptions {
                    grep: Some(grep),
                    full: true,
                    ..ReadOptions::default()
                }
            )
            .shown,
            0,
            "{}",
            s.kind
        );
    }
    assert!(forms[1].contains("[REDACTED:"), "{}", forms[1]);
}

/// The compact form must be much smaller than the full one: the point of it.
/// Prints tokens per session (the model's WordPiece tokenizer when the
/// assets are there) for docs/capture.md; run with `--nocapture` to see them.
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn compact_is_a_fraction_of_full_on_every_real_session() {
    let tokenizer = crate::model::tokenizer(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets/model/tokenizer.json"),
        None,
        None,
    )
    .ok();
    let count = |text: &str| match &tokenizer {
        Some(t) => t.encode(text, false).map(|e| e.len()).unwrap_or(0),
        None => text.len().div_ceil(4),
    };
    let unit = if tokenizer.is_some() {
        "MiniLM tokens"
    } else {
        "bytes/4"
    };
    let (mut compact_total, mut full_total) = (0, 0);
    let mut rows = Vec::new();
    for path in transcript_files(&corpus()) {
        let t = open(&source(&path)).unwrap();
        let compact = read(&t, &ReadOptions::default());
        let full = read(
            &t,
            &ReadOptions {
                full: true,
                ..ReadOptions::default()
            },
        );
        assert_eq!(compact.shown, full.shown);
        // Every numbered line appears once, in order.
        let numbers: Vec<usize> = compact
            .text
            .lines()
            .skip(1)
            .map(|l| l.split('|').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            numbers,
            (1..=compact.total).collect::<Vec<_>>(),
            "{}",
            path.display()
        );
        let (c, f) = (count(&compact.text), count(&full.text));
        // A short session costs about as much either way; a long one is
        // what the compact form is for.
        if f > 2000 {
            assert!(
                c * 2 < f,
                "{}: compact {c} vs full {f} {unit}",
                path.display()
            );
        }
        compact_total += c;
        full_total += f;
        rows.push(format!(
            "{:>7} {:>8} {:>5} {}",
            c,
            f,
            compact.total,
            path.display()
        ));
    }
    println!("compact  full  lines  ({unit})\n{}", rows.join("\n"));
    println!(
        "total: compact {compact_total}, full {full_total} ({:.1}%) over {} sessions",
        100.0 * compact_total as f64 / full_total as f64,
        rows.len()
    );
    // The vendored fixtures (when ../shared/testdata is absent) are short
    // sessions, where both forms cost about the same; the real corpus has
    // the long sessions the compact form is for.
    if corpus() != fixtures() {
        assert!(compact_total * 5 < full_total);
    } else {
        assert!(compact_total < full_total);
    }
}

#[test]
fn empty_searches_say_so_but_other_tools_one_line_output_is_kept() {
    let record = |v: serde_json::Value| v.to_string();
    let call = |id: &str, name: &str, input: serde_json::Value| {
        record(
            serde_json::json!({"type": "assistant", "uuid": format!("a{id}"), "sessionId": "s", "cwd": "/p",
            "message": {"id": format!("m{id}"), "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}),
        )
    };
    let result = |id: &str, text: &str| {
        record(
            serde_json::json!({"type": "user", "uuid": format!("r{id}"), "sessionId": "s", "cwd": "/p",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}}),
        )
    };
    let lines = [
        call("1", "Grep", serde_json::json!({"pattern": "TODO"})),
        result("1", "No matches found"),
        call("2", "Glob", serde_json::json!({"pattern": "*.rs"})),
        result("2", "No files found"),
        call("3", "Bash", serde_json::json!({"command": "git diff"})),
        result("3", "No changes"),
        call("4", "Read", serde_json::json!({"file_path": "/p/NOTES"})),
        result("4", "No entry yet"),
    ];
    let t = crate::agents::read::parse(lines.join("\n").as_bytes()).unwrap();
    let text = read(&t, &ReadOptions::default()).text;
    let body: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        body,
        [
            "1||tool|Grep|pattern=\"TODO\"|returned=0lines",
            "2||tool|Glob|pattern=\"*.rs\"|returned=0files",
            "3||tool|Bash|command=\"git diff\"|returned=\"No changes\"",
            "4||tool|Read|/p/NOTES|returned=1line",
        ]
    );
}
