use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};

use super::*;
use crate::transcript::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts")
}

/// The shared corpus of real transcripts (`../shared/testdata` beside the
/// repository, or `THEHOOK_TESTDATA`); the vendored fixtures when absent.
pub(crate) fn corpus() -> PathBuf {
    if let Some(dir) = std::env::var_os("THEHOOK_TESTDATA") {
        return PathBuf::from(dir);
    }
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata");
    if shared.is_dir() {
        return shared;
    }
    eprintln!("../shared/testdata not found: parsing the vendored fixtures only");
    fixtures()
}

pub(crate) fn transcript_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        // JSONL logs, and opencode's exports (one JSON document each).
        .filter(|p| {
            p.extension().is_some_and(|x| x == "jsonl")
                || (p.extension().is_some_and(|x| x == "json")
                    && p.parent().is_some_and(|d| d.ends_with("opencode")))
        })
        .collect();
    files.sort();
    files
}

fn is_subagent_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().contains("agent-a"))
}

#[test]
fn every_real_transcript_parses_with_conversation() {
    let dir = corpus();
    let files = transcript_files(&dir);
    // 42 in the shared corpus, 13 vendored.
    let expected = if dir == fixtures() { 13 } else { 42 };
    assert!(
        files.len() >= expected,
        "{} transcripts under {}, expected {expected}",
        files.len(),
        dir.display()
    );
    for path in &files {
        let t = load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let format = t.format.expect("a format");
        assert!(
            !t.entries.is_empty(),
            "{}: no entries ({format:?})",
            path.display()
        );
        // Every format but Cursor's stores the session id in the records.
        assert!(t.session_id.is_some(), "{}: no session id", path.display());
        let expected = path.to_string_lossy();
        let expected_format = if expected.contains("/codex/") {
            "codex"
        } else if expected.contains("/cursor/") {
            "cursor"
        } else if expected.contains("/other/") || expected.contains("/gemini/") {
            "gemini"
        } else if expected.contains("/copilot/") {
            "copilot"
        } else if expected.contains("/opencode/") {
            "opencode"
        } else {
            "claude-code"
        };
        assert_eq!(format, expected_format, "{}", path.display());
        // A subagent's own file: every entry is a sidechain, and its first
        // message is the parent's instruction, not a person's prompt.
        let subagent = t.entries.iter().all(|e| e.sidechain);
        assert_eq!(subagent, is_subagent_file(path), "{}", path.display());
        if format == "claude-code" && !subagent {
            assert!(t.cwd.is_some(), "{}: no cwd", path.display());
            assert!(t.first_prompt().is_some(), "{}: no prompt", path.display());
        }
        // Every result of a call in the same file finds its call.
        let orphans = t
            .entries
            .iter()
            .flat_map(|e| &e.blocks)
            .filter(|b| matches!(b, Block::ToolResult { .. }))
            .count();
        let calls = t.tool_calls().count();
        assert!(
            orphans <= calls.max(2) / 2,
            "{}: {orphans} results without their call, {calls} calls",
            path.display()
        );
        let condensed = condense(&t, &CondenseOptions::default());
        assert!(condensed.lines().count() > 1, "{}", path.display());
    }
}

#[test]
fn specstory_markdown_is_refused_with_a_clear_error() {
    let md = b"## SpecStory\n\n## Fun coding ideas (2025-03-11)\n\n_**User**_\n\nhello\n";
    let err = parse(md).unwrap_err().to_string();
    assert!(err.contains("markdown"), "{err}");
    let err = parse(b"{\n  \"a\": 1\n}\n").unwrap_err().to_string();
    assert!(err.contains("JSON document"), "{err}");
    assert_eq!(parse(b"").unwrap_err(), NotATranscript::Empty);
    let err = parse(b"hello\nworld\n").unwrap_err().to_string();
    assert!(err.contains("not a JSONL transcript"), "{err}");
    let err = parse(b"{\"x\":1}\n{\"y\":2}\n").unwrap_err().to_string();
    assert!(err.contains("none has the shape"), "{err}");
}

#[test]
fn a_missing_file_is_an_io_error_that_names_it() {
    let err = load(Path::new("/nonexistent/session.jsonl")).unwrap_err();
    assert!(
        err.to_string().contains("/nonexistent/session.jsonl"),
        "{err}"
    );
}

/// A JSON document too large to read whole (an opencode export of a long
/// session) is refused saying so, not taken for a file of no transcript.
#[test]
fn a_json_document_over_the_bound_is_refused_as_too_large() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.json");
    let message = "    {\n      \"role\": \"user\",\n      \"text\": \"".to_string()
        + &"x".repeat(1000)
        + "\"\n    },\n";
    let size = crate::transcript::bounded::WHOLE_UP_TO as usize;
    let mut doc = "{\n  \"info\": {\"id\": \"ses_1\"},\n  \"messages\": [\n".to_string();
    doc.push_str(&message.repeat(size / message.len() + 10));
    doc.push_str("    {}\n  ]\n}\n");
    std::fs::write(&path, doc).unwrap();
    let err = load(&path).unwrap_err().to_string();
    assert!(
        err.contains("a JSON document of") && err.contains("at most"),
        "{err}"
    );
}

#[test]
fn two_objects_on_one_line_are_both_recovered() {
    let text = concat!(
        r#"{"type":"user","uuid":"u1","sessionId":"s","cwd":"/p","message":{"role":"user","content":"fix the build"},"timestamp":"2026-01-20T15:07:58Z"}"#,
        r#"{"type":"summary","summary":"Fix the build","leafUuid":"u1"}"#,
        "\n"
    );
    let t = parse(text.as_bytes()).unwrap();
    assert_eq!(t.first_prompt(), Some("fix the build"));
    assert_eq!(t.title.as_deref(), Some("Fix the build"));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn the_real_glued_line_keeps_its_summary() {
    // Lines 127-131 of entireio-cli/37_995ebed6e4_2/130d7b7e-...jsonl, byte
    // for byte: line 128 is an assistant record and a summary with no newline
    // between them, and line 131 writes that assistant record again.
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/excerpts/entireio-130d7b7e-lines-127-131.jsonl"),
    )
    .unwrap();
    let (records, warnings) = read_records(&bytes);
    assert!(warnings.is_empty(), "{warnings:?}");
    let on_128: Vec<_> = records.iter().filter(|r| r.line == 2).collect();
    assert_eq!(on_128.len(), 2);
    assert_eq!(on_128[0].value["type"], "assistant");
    assert_eq!(on_128[1].value["type"], "summary");
    let t = parse(&bytes).unwrap();
    assert_eq!(
        t.title.as_deref(),
        Some("Add agent name to logging context")
    );
    // One message split over lines 127 and 128 (thinking, then text); the
    // copy on line 131 is read once, so its text is not added again.
    assert_eq!(t.entries.len(), 1, "{:#?}", t.entries);
    let kinds: Vec<_> = t.entries[0]
        .blocks
        .iter()
        .map(|b| match b {
            Block::Thinking { .. } => "thinking",
            Block::Text { .. } => "text",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["thinking", "text"]);
}

#[test]
fn damaged_lines_are_skipped_with_warnings_not_panics() {
    let good = r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hello"}}"#;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"{\"_type\":\"foreign-header\",\"version\":\"0.1\"}\r\n");
    bytes.extend_from_slice(good.as_bytes());
    bytes.extend_from_slice(b"\r\n");
    // Not UTF-8.
    bytes.extend_from_slice(
        br#"{"type":"user","uuid":"u2","sessionId":"s","message":{"role":"user","content":"caf"#,
    );
    bytes.extend_from_slice(&[0xE9, 0xFF]);
    bytes.extend_from_slice(b"\"}}\n");
    // A 1 MB line.
    bytes.extend_from_slice(
        format!(
            r#"{{"type":"assistant","uuid":"a1","sessionId":"s","message":{{"id":"m","role":"assistant","content":[{{"type":"text","text":"{}"}}]}}}}"#,
            "x".repeat(1 << 20)
        )
        .as_bytes(),
    );
    bytes.push(b'\n');
    // Cut short by a crash.
    bytes.extend_from_slice(&good.as_bytes()[..40]);
    let t = parse(&bytes).unwrap();
    assert_eq!(t.format, Some("claude-code"));
    assert_eq!(t.entries.len(), 3, "{:#?}", t.entries);
    assert!(
        matches!(&t.entries[1].blocks[0], Block::Text { text } if text.starts_with("caf\u{FFFD}"))
    );
    assert!(
        t.warnings.iter().any(|w| w.contains("line 5 is cut short")),
        "{:?}",
        t.warnings
    );
    assert!(
        t.warnings.iter().any(|w| w.contains("not UTF-8")),
        "{:?}",
        t.warnings
    );
}

#[test]
fn split_assistant_messages_merge_and_results_pair_with_calls() {
    let lines = [
        r#"{"type":"user","uuid":"1","sessionId":"s","message":{"role":"user","content":"run the tests"}}"#,
        r#"{"type":"assistant","uuid":"2","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"c2ln"}]}}"#,
        r#"{"type":"assistant","uuid":"3","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}"#,
        r#"{"type":"user","uuid":"4","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"error: 2 failed","is_error":true}]},"toolUseResult":"Error: Exit code 101"}"#,
        r#"{"type":"progress","uuid":"5","sessionId":"s","data":{"type":"bash_progress"}}"#,
        r#"{"type":"assistant","uuid":"6","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"src/lib.rs"}}]}}"#,
        r#"{"type":"user","uuid":"7","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":""}]},"toolUseResult":{"file":{"content":"fn main() {}"}}}"#,
        r#"{"type":"assistant","uuid":"3","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}"#,
    ];
    let t = parse(lines.join("\n").as_bytes()).unwrap();
    assert_eq!(t.entries.len(), 2, "{:#?}", t.entries);
    let calls: Vec<_> = t.tool_calls().collect();
    assert_eq!(calls.len(), 2, "the repeated record (uuid 3) is read once");
    let r1 = calls[0].result.as_ref().unwrap();
    assert!(r1.is_error && r1.text == "error: 2 failed");
    assert_eq!(calls[1].result.as_ref().unwrap().text, "fn main() {}");
}

#[test]
fn condensed_forms_of_real_transcripts() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    for path in transcript_files(&fixtures()) {
        let t = load(&path).unwrap();
        let condensed = condense(&t, &CondenseOptions::default());
        let rel = path
            .strip_prefix(fixtures())
            .unwrap()
            .to_string_lossy()
            .replace('/', "__");
        settings.bind(|| insta::assert_snapshot!(rel.trim_end_matches(".jsonl"), condensed));
    }
}

/// Mutations a crash, an editor or a broken disk could make to a line.
fn mutate(rng: &mut rand::rngs::StdRng, bytes: &[u8]) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len();
    for _ in 0..rng.random_range(1..4usize) {
        let i = rng.random_range(0..n);
        let line = &mut lines[i];
        match rng.random_range(0..7u8) {
            0 => line.truncate(rng.random_range(0..=line.len())),
            1 => {
                let at = rng.random_range(0..=line.len());
                let junk: [u8; 3] = [0xFF, b'{', 0xC3];
                line.splice(at..at, junk);
            }
            2 if i + 1 < n => {
                let next = std::mem::take(&mut lines[i + 1]);
                lines[i].extend(next);
            }
            3 => line.push(b'\r'),
            4 => {
                let copy = line.clone();
                line.extend(copy);
            }
            5 if !line.is_empty() => {
                let at = rng.random_range(0..line.len());
                line[at] = rng.random_range(0..=255u8);
            }
            _ => line.insert(0, b'['),
        }
    }
    lines.join(&b'\n')
}

#[test]
fn mutated_lines_never_panic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7e400c);
    for path in transcript_files(&fixtures()) {
        let bytes = std::fs::read(&path).unwrap();
        for _ in 0..150 {
            let mutated = mutate(&mut rng, &bytes);
            // Either a transcript or a message; a panic fails the test.
            match parse(&mutated) {
                Ok(t) => {
                    let _ = condense(&t, &CondenseOptions::default());
                }
                Err(message) => assert!(!message.to_string().is_empty()),
            }
        }
    }
}

#[test]
fn codex_injected_instructions_are_context_not_prompts() {
    let t = load(&fixtures().join("codex/madshn-rollout-20-34-25.jsonl")).unwrap();
    assert_eq!(t.format, Some("codex"));
    let users = t.entries.iter().filter(|e| e.role == Role::User).count();
    let context = t.entries.iter().filter(|e| e.role == Role::Context).count();
    assert!(
        users >= 1 && context >= 2,
        "users {users}, context {context}"
    );
    assert!(t.model.is_some() && t.cwd.is_some());
}

#[test]
fn claude_subagent_files_are_read_with_their_session() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("s1.jsonl");
    std::fs::write(
        &main,
        r#"{"type":"user","uuid":"1","sessionId":"s1","cwd":"/p","message":{"role":"user","content":"plan it"}}"#,
    )
    .unwrap();
    let sub = dir.path().join("s1/subagents");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("agent-a1.jsonl"),
        r#"{"type":"user","uuid":"2","sessionId":"s1","isSidechain":true,"agentId":"a1","message":{"role":"user","content":"explore"}}"#,
    )
    .unwrap();
    // 2.0.x: flat beside the session; another session's agent is not ours.
    std::fs::write(
        dir.path().join("agent-b2.jsonl"),
        r#"{"type":"user","uuid":"3","sessionId":"s1","isSidechain":true,"agentId":"b2","message":{"role":"user","content":"search"}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent-c3.jsonl"),
        r#"{"type":"user","uuid":"4","sessionId":"other","isSidechain":true,"agentId":"c3","message":{"role":"user","content":"no"}}"#,
    )
    .unwrap();
    let t = load(&main).unwrap();
    let ids: Vec<_> = t
        .subagents
        .iter()
        .filter_map(|s| s.agent_id.as_deref())
        .collect();
    assert_eq!(ids, ["a1", "b2"]);
}

/// Codex 0.171.0 runs a subagent (`spawn_agent`) as a thread of its own,
/// in a rollout beside its parent's that names the parent: read with it,
/// and not listed as a session of its own (the real CLI's rollouts, paths
/// replaced).
#[test]
fn codex_subagent_rollouts_are_read_with_their_parent_session() {
    let dir = fixtures().join("codex/subagent-0.171.0");
    let parent = dir.join("rollout-2026-12-07T07-49-41-01a24f7a-dcb4-7d62-8668-5914ed091bb7.jsonl");
    let t = load(&parent).unwrap();
    assert_eq!(
        t.session_id.as_deref(),
        Some("01a24f7a-dcb4-7d62-8668-5914ed091bb7")
    );
    assert_eq!(t.subagents.len(), 1, "the spawned thread's rollout");
    let child = &t.subagents[0];
    let said: String = user_text(child);
    assert!(
        said.contains("SUBTASK: find why the token refresh logs users out"),
        "{said}"
    );
    // The store lists the parent only.
    let home = tempfile::tempdir().unwrap();
    let store = home.path().join(".codex/sessions/2026/12/07");
    std::fs::create_dir_all(&store).unwrap();
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        std::fs::copy(f.path(), store.join(f.file_name())).unwrap();
    }
    let keep = |_: &Path| true;
    let scope = crate::agents::spec::StoreScope {
        root: Path::new("/p"),
        home: home.path(),
        keep: &keep,
    };
    let listed: Vec<String> = Agent::Codex
        .spec()
        .transcripts(&scope)
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(listed, ["01a24f7a-dcb4-7d62-8668-5914ed091bb7"]);
}

/// The text the user is said to have typed, across the transcript.
fn user_text(t: &Transcript) -> String {
    t.entries
        .iter()
        .filter(|e| e.role == Role::User)
        .flat_map(|e| &e.blocks)
        .filter_map(|b| match b {
            Block::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn memory_injected_at_session_start_never_reads_as_the_users_words() {
    for (file, format) in [
        ("gemini/headless-0.61.0.jsonl", "gemini"),
        ("codex/headless-0.169.0.jsonl", "codex"),
        ("claude-code/headless-2.1.328.jsonl", "claude-code"),
        ("copilot/headless-1.0.102.jsonl", "copilot"),
    ] {
        let t = load(&fixtures().join(file)).unwrap();
        assert_eq!(t.format, Some(format), "{file}");
        let said = user_text(&t);
        assert_eq!(said.trim(), "say hi", "{file}");
        let condensed = condense(&t, &CondenseOptions::default());
        assert!(
            !condensed.contains("THEHOOK_MARKER"),
            "{file}:\n{condensed}"
        );
        assert!(
            !condensed.contains("<session_context>"),
            "{file}:\n{condensed}"
        );
    }
    // Anywhere else, thehook's own block is context.
    let log = format!(
        "{{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"{}\\n- Tests live in __tests__/\"}}}}\n",
        crate::text::MEMORY_HEADING
    );
    let t = parse(log.as_bytes()).unwrap();
    assert!(t.entries.iter().all(|e| e.role == Role::Context));
}

#[test]
fn a_gemini_log_is_replayed_as_gemini_replays_it() {
    let log = [
        r#"{"sessionId":"g1","projectHash":"ab","startTime":"2026-11-23T10:00:00Z","lastUpdated":"2026-11-23T10:00:00Z","kind":"main"}"#,
        r#"{"id":"m1","timestamp":"2026-11-23T10:00:01Z","type":"user","content":[{"text":"first ask"}]}"#,
        r#"{"id":"m2","timestamp":"2026-11-23T10:00:02Z","type":"gemini","content":"partial","model":"gemini-2.5-flash"}"#,
        // A later line with the same id replaces the message in place.
        r#"{"id":"m2","timestamp":"2026-11-23T10:00:03Z","type":"gemini","content":"first answer","model":"gemini-2.5-flash"}"#,
        r#"{"id":"m3","timestamp":"2026-11-23T10:00:04Z","type":"user","content":[{"text":"a wrong turn"}]}"#,
        r#"{"id":"m4","timestamp":"2026-11-23T10:00:05Z","type":"gemini","content":"wrong answer"}"#,
        // Rewinding to m3 drops m3 and everything after it.
        r#"{"$rewindTo":"m3"}"#,
        r#"{"id":"m5","timestamp":"2026-11-23T10:00:06Z","type":"user","content":"second ask"}"#,
        r#"{"$set":{"lastUpdated":"2026-11-23T10:00:07Z"}}"#,
    ]
    .join("\n");
    let t = parse(log.as_bytes()).unwrap();
    assert_eq!(t.format, Some("gemini"));
    assert_eq!(t.session_id.as_deref(), Some("g1"));
    assert_eq!(t.ended.as_deref(), Some("2026-11-23T10:00:07Z"));
    assert_eq!(t.model.as_deref(), Some("gemini-2.5-flash"));
    let said: Vec<(Role, usize, String)> = t
        .entries
        .iter()
        .map(|e| {
            let text = e
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Text { text } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            (e.role, e.line, text)
        })
        .collect();
    assert_eq!(
        said,
        [
            (Role::User, 2, "first ask".to_string()),
            (Role::Assistant, 4, "first answer".to_string()),
            (Role::User, 8, "second ask".to_string()),
        ]
    );
    // `$set.messages` replaces the whole list.
    let reset = format!(
        "{log}\n{}",
        r#"{"$set":{"messages":[{"id":"m9","type":"user","content":"only this"}]}}"#
    );
    let t = parse(reset.as_bytes()).unwrap();
    assert_eq!(user_text(&t), "only this");
}

#[test]
fn a_real_copilot_session_reads_with_its_tool_call_and_result() {
    let t = load(&fixtures().join("copilot/tool-call-1.0.102.jsonl")).unwrap();
    assert_eq!(t.format, Some("copilot"));
    assert_eq!(
        t.session_id.as_deref(),
        Some("a8f1e0b0-e6aa-4bca-8205-15b2616150be")
    );
    assert_eq!(t.cwd.as_deref(), Some("/home/user/research/proj-copilot"));
    assert_eq!(t.git_branch.as_deref(), Some("main"));
    assert_eq!(t.agent_version.as_deref(), Some("1.0.102"));
    assert_eq!(t.model.as_deref(), Some("mock-model"));
    assert_eq!(user_text(&t), "run echo");
    let calls: Vec<&ToolCall> = t.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "bash");
    assert_eq!(calls[0].input["command"], "echo TOOL_RAN_OK");
    let result = calls[0]
        .result
        .as_ref()
        .expect("the result is paired with its call");
    assert!(result.text.starts_with("TOOL_RAN_OK"), "{}", result.text);
    assert!(!result.is_error);
    // The call and the answer after it are one assistant turn.
    let roles: Vec<Role> = t.entries.iter().map(|e| e.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    assert!(t.started.is_some() && t.ended > t.started);
}

#[test]
fn copilot_edge_cases_a_failed_tool_a_subagent_a_resume_and_a_cut_line() {
    let log = [
        r#"{"type":"session.start","data":{"sessionId":"c1","copilotVersion":"1.0.102","startTime":"2026-11-26T00:00:00Z","selectedModel":"gpt-5-mini","context":{"cwd":"/p","branch":"main"}},"id":"e1","timestamp":"2026-11-26T00:00:00Z","parentId":null}"#,
        r#"{"type":"user.message","data":{"content":"fix the build","transformedContent":"<current_datetime>x</current_datetime>\n\nfix the build\n\n<system_reminder>\nTHEHOOK_RECALL\n</system_reminder>"},"id":"e2","timestamp":"2026-11-26T00:00:01Z","parentId":"e1"}"#,
        r#"{"type":"assistant.message","data":{"content":"","reasoningText":"look first","toolRequests":[{"toolCallId":"t1","name":"view","arguments":{"path":"/p/Makefile"}}]},"id":"e3","timestamp":"2026-11-26T00:00:02Z","parentId":"e2"}"#,
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"t1","success":false,"error":{"message":"no such file"}},"id":"e4","timestamp":"2026-11-26T00:00:03Z","parentId":"e3"}"#,
        r#"{"type":"assistant.message","agentId":"sub-1","data":{"content":"sub-agent notes"},"id":"e5","timestamp":"2026-11-26T00:00:04Z","parentId":"e4"}"#,
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"gone","success":true,"result":{"content":"orphan"}},"id":"e6","timestamp":"2026-11-26T00:00:05Z","parentId":"e5"}"#,
        r#"{"type":"session.future_event","data":{"x":1},"id":"e7","timestamp":"2026-11-26T00:00:06Z","parentId":"e6"}"#,
        r#"{"type":"session.shutdown","data":{},"id":"e8","timestamp":"2026-11-26T00:00:07Z","parentId":"e7"}"#,
        r#"{"type":"session.resume","data":{"selectedModel":"gpt-5.4","context":{"cwd":"/p","branch":"fix-build"}},"id":"e9","timestamp":"2026-11-26T01:00:00Z","parentId":"e8"}"#,
        r#"{"type":"user.message","data":{"content":"and the tests"},"id":"e10","timestamp":"2026-11-26T01:00:01Z","parentId":"e9"}"#,
        r#"{"type":"session.error","data":{"message":"rate limited"},"id":"e11","timestamp":"2026-11-26T01:00:02Z","parentId":"e10"}"#,
        r#"{"type":"assistant.message","data":{"content":"cut he"#,
    ]
    .join("\n");
    let t = parse(log.as_bytes()).unwrap();
    assert_eq!(t.format, Some("copilot"));
    // What the person typed, never the recall thehook added to the turn.
    assert_eq!(user_text(&t), "fix the build\nand the tests");
    let call = t.tool_calls().next().unwrap();
    assert_eq!(call.name, "view");
    let result = call.result.as_ref().unwrap();
    assert_eq!(
        (result.text.as_str(), result.is_error),
        ("no such file", true)
    );
    assert!(t.entries[1]
        .blocks
        .iter()
        .any(|b| matches!(b, Block::Thinking { text } if text == "look first")));
    // The sub-agent's message is its own, marked as a sidechain.
    let sub = t.entries.iter().find(|e| e.sidechain).unwrap();
    assert_eq!(sub.role, Role::Assistant);
    // A result whose call is elsewhere is kept on its own.
    assert!(t.entries.iter().any(|e| e
        .blocks
        .iter()
        .any(|b| matches!(b, Block::ToolResult { result, .. } if result.text == "orphan"))));
    assert!(t.entries.iter().any(|e| e.role == Role::Event
        && e.blocks
            .iter()
            .any(|b| matches!(b, Block::Text { text } if text == "error: rate limited"))));
    // The resume names the branch and model the session went on with.
    assert_eq!(t.git_branch.as_deref(), Some("fix-build"));
    assert_eq!(t.model.as_deref(), Some("gpt-5.4"));
    assert_eq!(t.session_id.as_deref(), Some("c1"));
    assert_eq!(t.ended.as_deref(), Some("2026-11-26T01:00:02Z"));
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
}

#[test]
fn a_real_opencode_export_reads_without_the_recall_thehook_added() {
    let t = load(&fixtures().join("opencode/plugin-1.18.33.json")).unwrap();
    assert_eq!(t.format, Some("opencode"));
    assert_eq!(
        t.session_id.as_deref(),
        Some("ses_dea704c05ffe1tJq7CVqVEVEqk")
    );
    assert_eq!(t.cwd.as_deref(), Some("/home/user/research/proj-opencode"));
    assert_eq!(t.agent_version.as_deref(), Some("1.18.33"));
    assert_eq!(t.model.as_deref(), Some("mock-small"));
    assert_eq!(t.title.as_deref(), Some("MOCK-REPLY: hello from mock"));
    // `opencode run "<words>"` keeps the quotes it was given.
    assert_eq!(user_text(&t), "\"how do deploys work here, blue-green?\"");
    let condensed = condense(&t, &CondenseOptions::default());
    assert!(
        !condensed.contains("# Project memory (thehook)"),
        "{condensed}"
    );
    assert!(t.started.is_some() && t.ended >= t.started);

    let t = load(&fixtures().join("opencode/tool-call-1.18.33.json")).unwrap();
    let calls: Vec<&ToolCall> = t.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].name.as_str(), calls[0].id.as_deref()),
        ("bash", Some("call_1"))
    );
    assert_eq!(calls[0].input["command"], "echo hi-from-bash");
    let result = calls[0].result.as_ref().unwrap();
    assert_eq!(
        (result.text.as_str(), result.is_error),
        ("hi-from-bash\n", false)
    );
    // The tool step and the answer step are one assistant turn.
    let roles: Vec<Role> = t.entries.iter().map(|e| e.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
}

#[test]
fn opencode_edge_cases_a_failed_tool_one_still_running_reasoning_and_synthetic_parts() {
    let export = serde_json::json!({
        "info": {"id": "ses_1", "directory": "/p", "title": "t", "version": "1.18.33",
                 "time": {"created": 1795657827630u64, "updated": 1795657830491u64}},
        "messages": [
            {"info": {"role": "user", "time": {"created": 1795657827700u64}},
             "parts": [{"type": "text", "text": "@src/a.rs contents", "synthetic": true}]},
            {"info": {"role": "user", "time": {"created": 1795657827721u64}},
             "parts": [{"type": "text", "text": "fix it"}, {"type": "file", "url": "file:///p/src/a.rs"}]},
            {"info": {"role": "assistant", "modelID": "gpt-5", "time": {"created": 1795657828000u64}},
             "parts": [{"type": "step-start"}, {"type": "reasoning", "text": "read first"},
                       {"type": "tool", "tool": "read", "callID": "c1", "state": {"status": "error", "input": {"filePath": "/p/x"}, "error": "no such file"}},
                       {"type": "tool", "tool": "bash", "callID": "c2", "state": {"status": "running", "input": {"command": "cargo test"}}},
                       {"type": "patch", "files": ["/p/src/a.rs"]}, {"type": "step-finish"}]},
            {"info": {"role": "system"}, "parts": [{"type": "text", "text": "ignored"}]},
            {"parts": [{"type": "text", "text": "no info"}]}
        ]
    });
    // Pretty-printed, as `opencode export` prints it.
    let t = parse(serde_json::to_string_pretty(&export).unwrap().as_bytes()).unwrap();
    assert_eq!(t.format, Some("opencode"));
    let roles: Vec<Role> = t.entries.iter().map(|e| e.role).collect();
    assert_eq!(roles, [Role::Context, Role::User, Role::Assistant]);
    assert_eq!(user_text(&t), "fix it");
    assert_eq!(t.model.as_deref(), Some("gpt-5"));
    let calls: Vec<&ToolCall> = t.tool_calls().collect();
    let failed = calls[0].result.as_ref().unwrap();
    assert_eq!(
        (failed.text.as_str(), failed.is_error),
        ("no such file", true)
    );
    assert_eq!(calls[1].result, None, "still running: no result yet");
    assert!(t.entries[2]
        .blocks
        .iter()
        .any(|b| matches!(b, Block::Thinking { text } if text == "read first")));
    assert_eq!(t.started.as_deref(), Some("2026-11-26T01:50:27.63Z"));
    // Not an export: a clear error, not a panic.
    let not = parse(br#"{"info": {"id": "x"}, "messages": []}"#)
        .unwrap_err()
        .to_string();
    assert!(not.contains("JSON"), "{not}");
}
