//! `thehook sessions` and `thehook read` on the built binary, over a HOME
//! holding real transcripts (the vendored fixtures, with their working
//! folder moved to the test project so they belong to it).

use crate::common::{repo_root, Project};
use serde_json::Value;

const CLAUDE: &str = "55604662-cf2a-4331-851a-ec234028f8ca";
const CODEX: &str = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff";
/// A failed capture whose id starts like CLAUDE's.
const FAILED: &str = "55604662-0000-4000-8000-000000000001";
const SECRET: &str = "ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l1234abc";

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(
        repo_root()
            .join("crates/thehook-core/tests/fixtures/transcripts")
            .join(rel),
    )
    .unwrap()
}

/// A project whose HOME holds a Claude Code session with a subagent, a Codex
/// rollout and a failed capture's redacted copy.
fn project_with_history() -> Project {
    let p = Project::empty();
    std::fs::create_dir_all(p.thehook().join("failed")).unwrap();
    let root = p.root().to_string_lossy().into_owned();
    let claude = fixture("claude-code/marot-short.jsonl")
        .replace("/home/marco/projects/spotter", &root)
        // A token pasted into the first prompt.
        .replace(
            "mix phx.server doesnt seem to start",
            &format!("mix phx.server doesnt seem to start, token {SECRET}"),
        );
    let store = p.claude_store();
    p.write(&format!("{store}/{CLAUDE}.jsonl"), claude);
    p.write(
        &format!("{store}/{CLAUDE}/subagents/agent-ac1684a.jsonl"),
        fixture("claude-code/crazytieguy-agent-ac1684a.jsonl"),
    );
    p.write(
        &format!("home/.codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-{CODEX}.jsonl"),
        fixture("codex/madshn-rollout-20-34-25.jsonl").replace("/redacted/path/ea96e59ed9", &root),
    );
    // Another project's session is not listed.
    p.write(
        "home/.claude/projects/-elsewhere/x.jsonl",
        fixture("claude-code/d-kimuson-1af7fc5e.jsonl"),
    );
    let failed = fixture("claude-code/drmaciver-stop-hook.jsonl");
    let original_id = failed
        .lines()
        .find_map(|l| {
            serde_json::from_str::<Value>(l)
                .ok()?
                .get("sessionId")?
                .as_str()
                .map(String::from)
        })
        .unwrap();
    p.write(
        &format!(".thehook/failed/{FAILED}.jsonl"),
        failed.replace(&original_id, FAILED),
    );
    p.write(
        &format!(".thehook/failed/{FAILED}.json"),
        format!(r#"{{"version":1,"session_id":"{FAILED}","agent":"claude-code","transcript_path":null,"cwd":null,"origin":"hook","queued_at":"2026-02-01T00:00:00Z"}}"#),
    );
    p.write(
        &format!(".thehook/failed/{FAILED}.reason"),
        "the LLM timed out\n",
    );
    p
}

#[test]
fn sessions_lists_every_store_newest_first_with_subagents_indented() {
    let p = project_with_history();
    let text = p.ok(&["sessions"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    // Newest first: the Codex rollout (2026-02-23), the Claude session
    // (2026-02-10) with its subagent, the failed copy (older).
    assert!(
        lines[0].starts_with("019c8bfe") && lines[0].contains(" 2026-02-23T19:34 24 "),
        "{text}"
    );
    assert!(
        lines[1].starts_with("55604662-c")
            && lines[1].contains(" 2026-02-10T21:11 8 mix phx.server doesnt seem to start"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("  agent-ac1684a 2026-01-04T23:26 2 Warmup"),
        "{text}"
    );
    assert!(lines[3].starts_with("55604662-0"), "{text}");
    assert!(
        !text.contains(SECRET) && text.contains("[REDACTED:"),
        "{text}"
    );

    let json: Value = serde_json::from_str(&p.ok(&["sessions", "--json"])).unwrap();
    let sessions = json["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3);
    assert_eq!(sessions[1]["id"], CLAUDE);
    assert_eq!(sessions[1]["agent"], "claude-code");
    assert_eq!(sessions[1]["lines"], 8);
    assert_eq!(sessions[1]["subagents"][0]["id"], "agent-ac1684a");
    assert!(sessions[1]["subagents"][0]["path"]
        .as_str()
        .unwrap()
        .ends_with(&format!("{CLAUDE}/subagents/agent-ac1684a.jsonl")));
    assert_eq!(sessions[2]["failed_copy"], true);

    let codex = p.ok(&["sessions", "--agent", "codex"]);
    assert_eq!(codex.lines().count(), 1, "{codex}");
    let limited = p.ok(&["sessions", "--limit", "1"]);
    assert!(
        limited.ends_with("… 2 older (--limit 0 lists all)\n"),
        "{limited}"
    );
    // Every transcript here was written now; none since tomorrow.
    let (code, out, err) = p.run(&["sessions", "--since", "2999-01-01"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("no sessions of"), "{err}");
}

#[test]
fn read_compact_then_lines_in_full() {
    let p = project_with_history();
    let compact = p.ok(&["read", "55604662-c"]);
    let lines: Vec<&str> = compact.lines().collect();
    assert!(
        lines[0].starts_with(&format!("session {CLAUDE}|claude-code|")),
        "{compact}"
    );
    assert_eq!(lines.len(), 9, "{compact}");
    assert!(
        lines[1].starts_with("1|2026-02-10T21:11|user|\"mix phx.server"),
        "{compact}"
    );
    assert!(
        lines[4].starts_with("4|21:11|tool|Bash|command=\"mix phx.server 2>&1 | head -80\"|error="),
        "{compact}"
    );
    assert!(!compact.contains(SECRET));

    let full = p.ok(&["read", "55604662-c", "4"]);
    assert!(full.contains("4|tool|2026-02-10T21:"), "{full}");
    assert!(
        full.contains("<command>mix phx.server 2>&1 | head -80</command>"),
        "{full}"
    );
    assert!(full.contains("<error>"), "{full}");
    let several = p.ok(&["read", "55604662-c", "1,3-4"]);
    assert_eq!(
        several.matches("\n1|user|").count()
            + several.matches("\n3|").count()
            + several.matches("\n4|").count(),
        3,
        "{several}"
    );
    assert!(several.contains("[REDACTED:github"), "{several}");

    // --grep keeps matching lines, numbered as before.
    let grep = p.ok(&["read", "55604662-c", "--grep", "phx"]);
    assert!(grep.lines().skip(1).all(|l| l.contains("phx")), "{grep}");
    let (code, _, err) = p.run(&["read", "55604662-c", "--grep", "nowhere-to-be-found"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no line matches (the session has 8 lines)"),
        "{err}"
    );

    // A subagent by its id, a Codex session, the failed copy.
    assert!(p
        .ok(&["read", "agent-ac1684a"])
        .contains("1|2026-01-04T23:26|sub.user|\"Warmup\""));
    assert!(p
        .ok(&["read", "ac1684a"])
        .starts_with("session agent-ac1684a|"));
    assert!(p
        .ok(&["read", "019c"])
        .starts_with(&format!("session {CODEX}|codex|")));
    assert!(p
        .ok(&["read", "55604662-0"])
        .starts_with(&format!("session {FAILED}|")));
}

#[test]
fn unknown_ambiguous_and_malformed_requests_are_clear_errors() {
    let p = project_with_history();
    let (code, out, err) = p.run(&["read", "55604662"]);
    assert_eq!((code, out.as_str()), (1, ""));
    // Each candidate with its transcript, whole: the format a person picks from.
    let err = p.without_root(&err);
    let err = regex::Regex::new(r"projects/[^/]+/")
        .unwrap()
        .replace(&err, "projects/[slug]/");
    insta::assert_snapshot!(err, @r#"
    error: 2 sessions have ids starting with "55604662":
      55604662-cf2a-4331-851a-ec234028f8ca ([project]/home/.claude/projects/[slug]/55604662-cf2a-4331-851a-ec234028f8ca.jsonl)
      55604662-0000-4000-8000-000000000001 ([project]/.thehook/failed/55604662-0000-4000-8000-000000000001.jsonl)
      fix: give more of the id
    "#);

    let (code, _, err) = p.run(&["read", "ffff"]);
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "no session of this project has an id starting with \"ffff\" (3 sessions searched)"
        ),
        "{err}"
    );

    for (args, says) in [
        (vec!["read", "019c", "0"], "lines are numbered from 1"),
        (vec!["read", "019c", "9-2"], "runs backwards"),
        (
            vec!["read", "019c", "--grep", "("],
            "is not a regular expression",
        ),
    ] {
        let (code, _, err) = p.run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains(says) && err.contains("fix:"),
            "{args:?}: {err}"
        );
    }
    // Another project's transcript is not read, even by its path.
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("other.jsonl");
    std::fs::write(&outside, fixture("claude-code/marot-short.jsonl")).unwrap();
    let (code, out, err) = p.run(&["read", outside.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("is not a transcript of this project"), "{err}");
    // One of this project's, by its path in the agent's store, is.
    let stored = p
        .home()
        .join(".codex/sessions/2026/02/23")
        .join(format!("rollout-2026-02-23T20-34-25-{CODEX}.jsonl"));
    assert!(p
        .ok(&["read", stored.to_str().unwrap()])
        .starts_with(&format!("session {CODEX}|codex|")));
    // A damaged transcript: a clear error naming it.
    p.write("broken.jsonl", "not json\n");
    let broken = p.root().join("broken.jsonl");
    let (code, _, err) = p.run(&["read", broken.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("broken.jsonl") && err.contains("not a JSONL transcript"),
        "{err}"
    );
}

#[test]
fn a_session_with_inline_subagent_turns_is_listed_not_taken_for_a_subagent() {
    // Claude Code 1.0 wrote subagent turns inline (`isSidechain: true`) in
    // the session's own file; only a file that starts as a sidechain is a
    // subagent's.
    let p = Project::empty();
    let root = p.root().to_string_lossy().into_owned();
    let record = |uuid: &str, sidechain: bool, text: &str| {
        serde_json::json!({"type": "user", "uuid": uuid, "sessionId": "inline-1", "cwd": root, "isSidechain": sidechain,
            "timestamp": "2025-06-01T10:00:00Z", "message": {"role": "user", "content": text}})
        .to_string()
    };
    p.write(
        &format!("{}/inline-1.jsonl", p.claude_store()),
        [
            record("u1", false, "plan the migration"),
            record("u2", true, "search the schema"),
        ]
        .join("\n"),
    );
    let text = p.ok(&["sessions"]);
    assert!(
        text.starts_with("inline-1 2025-06-01T10:00 2 plan the migration"),
        "{text}"
    );
    assert!(p
        .ok(&["read", "inline"])
        .contains("\n2|10:00|sub.user|\"search the schema\""));
}

#[test]
fn the_listing_is_cached_until_a_transcript_changes() {
    let p = project_with_history();
    let first = p.ok(&["sessions"]);
    let cache_file = p.thehook().join("index/sessions.json");
    let cache = std::fs::read_to_string(&cache_file).unwrap();
    assert!(
        !cache.contains(SECRET),
        "the cache holds redacted text only"
    );
    // Proof that unchanged transcripts are not read again: a summary
    // changed in the cache is what the next listing shows.
    std::fs::write(
        &cache_file,
        cache.replace("mix phx.server doesnt seem to start", "FROM THE CACHE"),
    )
    .unwrap();
    assert!(p.ok(&["sessions"]).contains(" 8 FROM THE CACHE"));
    // A transcript that changed is read again.
    let root = p.root().to_string_lossy().into_owned();
    let transcript = p
        .root()
        .join(format!("{}/{CLAUDE}.jsonl", p.claude_store()));
    let mut text = std::fs::read_to_string(&transcript).unwrap();
    text.push_str(&format!(
        "{{\"type\":\"user\",\"uuid\":\"late\",\"sessionId\":\"{CLAUDE}\",\"cwd\":\"{root}\",\"timestamp\":\"2026-02-10T21:30:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"one more thing\"}}}}\n"
    ));
    std::fs::write(&transcript, text).unwrap();
    let after = p.ok(&["sessions"]);
    assert!(
        after.contains(" 9 mix phx.server doesnt seem to start"),
        "{after}"
    );
    // A damaged cache is rebuilt, and a captured title still wins.
    std::fs::write(&cache_file, "{ not json").unwrap();
    p.write(
        ".thehook/sessions/2026-02-10-2111-phx.md",
        format!("---\nsession_id: {CLAUDE}\nagent: claude-code\ndate: 2026-02-10T21:11:00Z\ntitle: Phoenix server would not start\nconsolidated: false\n---\n## Session Summary\n- **What was done**: found the port clash\n"),
    );
    let titled = p.ok(&["sessions"]);
    assert!(
        titled.contains(" 9 Phoenix server would not start"),
        "{titled}"
    );
    assert_eq!(titled.lines().count(), first.lines().count());
}
