//! End to end: `thehook init` / `uninstall` on settings files that already
//! hold other hooks, and the agents' real session-start payloads piped to
//! `thehook retrieve` in a temp git repo.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::common::{git, hours, wait_for, Project};
use serde_json::{json, Value};

fn bin() -> String {
    assert_cmd::cargo::cargo_bin("thehook")
        .display()
        .to_string()
}

/// A git repo on branch `feat/auth` with one commit, memory initialised
/// for `agents`, and a few facts remembered.
fn repo(agents: &str) -> Project {
    let p = Project::empty();
    git(p.root(), &["init", "-q", "-b", "feat/auth"]);
    p.write("src/auth/jwt.rs", "fn sign() {}\n");
    git(p.root(), &["add", "."]);
    git(
        p.root(),
        &[
            "commit",
            "-q",
            "-m",
            "Add JWT signing for the auth middleware",
        ],
    );
    p.ok(&["init", "--agent", agents, "--bin", &bin()]);
    p
}

fn remember_facts(p: &Project) {
    for (text, kind) in [
        (
            "Tests are colocated in __tests__ next to the source files",
            "convention",
        ),
        (
            "JWT auth with refresh token rotation instead of server sessions",
            "adr",
        ),
        (
            "vitest --changed misses files imported through path aliases",
            "gotcha",
        ),
        ("The staging database is reset every Monday", "note"),
    ] {
        p.ok(&["remember", text, "--type", kind]);
    }
}

/// Pipes `payload` to `thehook retrieve` (no background half) and returns
/// (exit code, stdout, stderr).
fn retrieve(p: &Project, agent: &str, payload: &str) -> (i32, String, String) {
    let out = p
        .cmd(&["retrieve", "--agent", agent])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(payload)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn claude_payload(p: &Project, source: &str) -> String {
    json!({
        "session_id": "5e41ef2f-689e-4d7d-b917-06ebc40107bc",
        "transcript_path": p.home().join(".claude/projects/x/5e41ef2f.jsonl"),
        "cwd": p.root(),
        "permission_mode": "default",
        "hook_event_name": "SessionStart",
        "source": source,
        "model": "claude-sonnet-4-5"
    })
    .to_string()
}

fn cursor_payload(p: &Project) -> String {
    json!({
        "session_id": "c0ffee", "conversation_id": "c0ffee", "generation_id": "g1",
        "model": "auto", "hook_event_name": "sessionStart", "cursor_version": "2.1.0",
        "workspace_roots": [p.root()], "user_email": null, "transcript_path": null,
        "is_background_agent": false, "composer_mode": "agent"
    })
    .to_string()
}

fn codex_payload(p: &Project) -> String {
    json!({
        "session_id": "019c8bfe-ec25-79e0-97d7-bda6a9c575ff", "transcript_path": null,
        "cwd": p.root(), "hook_event_name": "SessionStart", "model": "gpt-5-codex",
        "permission_mode": "default", "source": "startup"
    })
    .to_string()
}

fn gemini_payload(p: &Project) -> String {
    json!({
        "session_id": "faff42ab", "transcript_path": p.home().join(".gemini/tmp/h/chats/session-1.json"),
        "cwd": p.root(), "hook_event_name": "SessionStart",
        "timestamp": "2026-11-22T10:00:00.000Z", "source": "startup"
    })
    .to_string()
}

/// Copilot CLI 1.0.102's camelCase sessionStart payload (epoch ms).
fn copilot_payload(p: &Project) -> String {
    json!({
        "sessionId": "dfa2d416-7d8b-4c55-b1a8-3c1f4b8f2b70", "timestamp": 1795651152393u64,
        "cwd": p.root(), "source": "new", "initialPrompt": "add a health check"
    })
    .to_string()
}

/// What thehook's opencode plugin sends at a session's first model request.
fn opencode_payload(p: &Project) -> String {
    json!({
        "session_id": "ses_dea704c05ffe1tJq7CVqVEVEqk", "cwd": p.root(),
        "hook_event_name": "SessionStart", "source": "startup"
    })
    .to_string()
}

fn context_of(stdout: &str, agent: &str) -> String {
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {stdout:?}"));
    let text = if agent == "cursor" {
        assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
        v["additional_context"].as_str()
    } else if agent == "copilot" || agent == "opencode" {
        // Copilot reads only the flat key: anything else is dropped unread.
        assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
        v["additionalContext"].as_str()
    } else {
        assert_eq!(
            v["hookSpecificOutput"]["hookEventName"], "SessionStart",
            "{v}"
        );
        v["hookSpecificOutput"]["additionalContext"].as_str()
    };
    text.unwrap_or_else(|| panic!("no context in {v}"))
        .to_string()
}

#[test]
fn each_agent_gets_its_own_output_shape_with_cited_facts() {
    let p = repo("claude,cursor,codex,gemini,copilot,opencode");
    remember_facts(&p);
    let cases = [
        ("claude-code", claude_payload(&p, "startup"), "claude-code"),
        ("cursor", cursor_payload(&p), "cursor"),
        ("codex", codex_payload(&p), "codex"),
        ("gemini", gemini_payload(&p), "gemini"),
        ("copilot", copilot_payload(&p), "copilot"),
        // The plugin reads the flat key too.
        ("opencode", opencode_payload(&p), "opencode"),
    ];
    for (declared, payload, shape) in cases {
        let (code, out, err) = retrieve(&p, declared, &payload);
        assert_eq!(code, 0, "{err}");
        assert!(err.is_empty(), "stderr must stay empty: {err}");
        let context = context_of(&out, shape);
        let opening = format!(
            "# Project memory (thehook)\n{}\n## Conventions\n",
            thehook_core::text::MEMORY_IS_DATA
        );
        assert!(context.starts_with(&opening), "{context}");
        for needle in [
            "- Tests are colocated in __tests__ next to the source files (.thehook/knowledge/notes.md:3)",
            "## Decisions\n- JWT auth with refresh token rotation instead of server sessions, 20",
            "## Gotchas\n",
            "## Notes\n- The staging database is reset every Monday (.thehook/knowledge/notes.md:6)",
        ] {
            assert!(context.contains(needle), "{shape}: no {needle:?} in\n{context}");
        }
    }
    let log = p.read(".thehook/logs/hooks.log");
    assert_eq!(log.matches("retrieve ").count(), 6, "{log}");
}

#[test]
fn cursor_running_claude_hooks_is_answered_once() {
    let p = repo("claude,cursor");
    remember_facts(&p);
    // Cursor runs the Claude Code hook too, with its own payload: silence,
    // because the native sessionStart hook answers.
    let (code, out, _) = retrieve(&p, "claude-code", &cursor_payload(&p));
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(p
        .read(".thehook/logs/hooks.log")
        .contains("its own sessionStart hook answers"));
    // Without a Cursor hook, the Claude hook answers in Cursor's shape.
    let only_claude = repo("claude");
    remember_facts(&only_claude);
    let (_, out, _) = retrieve(&only_claude, "claude-code", &cursor_payload(&only_claude));
    assert!(context_of(&out, "cursor").contains("Tests are colocated"));
}

#[test]
fn silent_when_memory_is_empty_off_or_the_source_is_not_wanted() {
    let p = repo("claude");
    let (code, out, _) = retrieve(&p, "claude-code", &claude_payload(&p, "startup"));
    assert_eq!(
        (code, out.as_str()),
        (0, ""),
        "empty memory injects nothing"
    );
    remember_facts(&p);
    let (_, out, _) = retrieve(&p, "claude-code", &claude_payload(&p, "resume"));
    assert_eq!(out, "", "resume is not in inject_on by default");
    p.write(
        ".thehook/config.yaml",
        "retrieval:\n  inject_on: [startup, resume]\n",
    );
    let (_, out, _) = retrieve(&p, "claude-code", &claude_payload(&p, "resume"));
    assert!(context_of(&out, "claude-code").contains("JWT"));
    p.write(".thehook/config.yaml", "retrieval:\n  auto_inject: false\n");
    let (_, out, _) = retrieve(&p, "claude-code", &claude_payload(&p, "startup"));
    assert_eq!(out, "");
    let out = p
        .cmd(&["retrieve"])
        .env("THEHOOK_CHILD", "1")
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(claude_payload(&p, "startup"))
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
}

#[test]
fn a_project_without_memory_gets_nothing_and_no_folder() {
    let p = Project::empty();
    let (code, out, err) = retrieve(&p, "claude-code", &claude_payload(&p, "startup"));
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    assert!(!p.thehook().exists(), "retrieve must not create memory");
}

#[test]
fn malformed_stdin_exits_0_silently_and_logs_why() {
    let p = repo("claude");
    remember_facts(&p);
    let cases = [
        ("", "stdin is empty"),
        ("this is not json", "stdin is not JSON"),
        ("[1, 2]", "not an object"),
        (r#"{"foo": 1}"#, "neither session_id nor hook_event_name"),
        ("{\"session_id\": \"a\", \"cwd\": ", "stdin is not JSON"),
    ];
    for (stdin, why) in cases {
        let (code, out, err) = retrieve(&p, "claude-code", stdin);
        assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""), "{stdin:?}");
        let log = p.read(".thehook/logs/hooks.log");
        assert!(
            log.lines().last().unwrap().contains(why),
            "{stdin:?}: {log}"
        );
    }
    // Capture too: exit 0, nothing queued.
    let out = p.cmd(&["capture"]).write_stdin("garbage").output().unwrap();
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
    assert!(!p.thehook().join("queue").exists());
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn the_block_fits_the_token_budget_and_the_character_cap() {
    let p = repo("claude");
    let long = "word ".repeat(70);
    let mut notes = String::from("# Conventions\n\n");
    for i in 0..200 {
        notes.push_str(&format!("- `[convention]` rule {i}: {long}\n"));
    }
    p.write(".thehook/knowledge/conventions.md", &notes);
    // Judged by the learned check first: a hook gives no item it has not read.
    p.ok(&["reindex"]);
    let items = |config: &str| {
        p.write(".thehook/config.yaml", config);
        let (_, out, _) = retrieve(&p, "claude-code", &claude_payload(&p, "startup"));
        assert!(!out.is_empty(), "{}", p.read(".thehook/logs/hooks.log"));
        let context = context_of(&out, "claude-code");
        (
            context.lines().filter(|l| l.starts_with("- ")).count(),
            context.chars().count(),
        )
    };
    let small = "retrieval:\n  token_budget: 300\n  max_results: 100\n";
    let (n_small, _) = items(small);
    // The background half stores exact counts; the next start uses them
    // instead of the tokenizer and makes the same choice.
    p.ok(&["retrieve", "--background"]);
    assert!(p.thehook().join("index/token-counts.json").is_file());
    assert_eq!(items(small).0, n_small);
    let (n_large, chars_large) = items("retrieval:\n  token_budget: 50000\n  max_results: 100\n");
    // A line is about 75 tokens ("word" is one token): 300 fits 3, never 4.
    assert!(
        (1..=3).contains(&n_small),
        "{n_small} items under 300 tokens"
    );
    assert!(n_large > n_small);
    assert!(chars_large <= 10_000, "{chars_large} characters");
}

#[test]
fn failed_and_queued_captures_are_mentioned() {
    let p = repo("claude");
    remember_facts(&p);
    p.write(".thehook/failed/s1.jsonl", "{}");
    p.write(".thehook/failed/s1.reason", "timeout");
    let out = p
        .cmd(&["capture", "--agent", "claude-code"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(
            json!({"session_id": "s2", "transcript_path": "/t/s2.jsonl", "cwd": p.root(),
                   "hook_event_name": "SessionEnd", "reason": "other"})
            .to_string(),
        )
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
    let job: Value = serde_json::from_str(&p.read(".thehook/queue/s2.json")).unwrap();
    assert_eq!(job["agent"], "claude-code");
    assert_eq!(job["origin"], "hook");
    assert_eq!(job["reason"], "other");
    let (_, out, _) = retrieve(&p, "claude-code", &claude_payload(&p, "startup"));
    let context = context_of(&out, "claude-code");
    assert!(
        context.ends_with("Note: 1 session capture(s) failed and wait in .thehook/failed/ (`thehook capture --retry` redoes them); 1 session(s) wait in .thehook/queue/ to be captured."),
        "{context}"
    );
}

/// Sets a file's modification time `ago` in the past.
fn age(path: &Path, ago: Duration) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
}

#[test]
fn the_background_sweep_queues_sessions_that_were_never_captured() {
    let p = repo("claude");
    remember_facts(&p);
    age(&p.thehook().join("config.yaml"), hours(3));
    // Ended an hour ago: swept.
    p.claude_session("old-1")
        .user("fix the login")
        .ended(hours(1));
    // Still being written: a live session, not swept.
    p.claude_session("live-2").user("fix the login").live();
    // Another project's folder that shares the prefix: its cwd says so.
    p.claude_session("o-3")
        .elsewhere("other", "/elsewhere")
        .user("fix the login")
        .ended(hours(1));
    // Older than the setup of thehook here: not swept (no surprise LLM bill).
    p.claude_session("ancient-4")
        .user("fix the login")
        .ended(hours(5));
    // A Codex rollout of this project, with no conversation in it.
    p.codex_rollout("cx-5").ended(hours(1));

    // The real hook, with its detached background half.
    let out = p
        .cmd(&["retrieve", "--agent", "claude-code"])
        .write_stdin(claude_payload(&p, "startup"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let queue = p.thehook().join("queue");
    wait_for(&p, ".thehook/logs/hooks.log", "retrieve --background");
    // Both swept sessions were queued, then captured by the same
    // background half (without an LLM here: from the transcript alone).
    let log = p.read(".thehook/logs/hooks.log");
    assert!(log.contains("queued 2 uncaptured session(s)"), "{log}");
    assert!(
        log.contains("capture worker: 1 heuristic, 1 skipped"),
        "{log}"
    );
    // The rollout holds no conversation: nothing to write, and not swept again.
    let queued = || {
        std::fs::read_dir(&queue)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .count()
    };
    assert_eq!(queued(), 0);
    assert_eq!(captured_ids(&p), ["old-1"]);
    let session = p.read(&format!(
        ".thehook/sessions/{}",
        session_file_of(&p, "old-1")
    ));
    assert!(
        session.contains("- **What was asked**: fix the login"),
        "{session}"
    );
    // Captured sessions are not swept again.
    p.ok(&["retrieve", "--agent", "claude-code", "--background"]);
    assert_eq!(queued(), 0);
    let last = p.read(".thehook/logs/hooks.log");
    assert!(
        last.lines()
            .last()
            .unwrap()
            .contains("no uncaptured sessions"),
        "{last}"
    );
    assert_eq!(captured_ids(&p), ["old-1"]);
    // Editing the config later does not move the start of the window: a
    // session whose file was deleted is swept and captured again.
    p.write(".thehook/config.yaml", "retrieval:\n  max_results: 6\n");
    std::fs::remove_file(
        p.thehook()
            .join("sessions")
            .join(session_file_of(&p, "old-1")),
    )
    .unwrap();
    for ext in ["json", "jsonl", "reason"] {
        let _ = std::fs::remove_file(p.thehook().join(format!("failed/old-1.{ext}")));
    }
    p.ok(&["retrieve", "--agent", "claude-code", "--background"]);
    assert_eq!(captured_ids(&p), ["old-1"]);
}

/// The session files as (session id, file name), sorted, read by the
/// core's own reader.
fn sessions(p: &Project) -> Vec<(String, String)> {
    let project = thehook_core::Project::at(p.root());
    let mut found: Vec<(String, String)> = thehook_core::store::session_files(&project)
        .into_iter()
        .filter_map(|f| {
            let name = f.path.file_name()?.to_string_lossy().into_owned();
            Some((f.front_matter.session_id?, name))
        })
        .collect();
    found.sort();
    found
}

fn captured_ids(p: &Project) -> Vec<String> {
    sessions(p).into_iter().map(|(id, _)| id).collect()
}

fn session_file_of(p: &Project, id: &str) -> String {
    sessions(p)
        .into_iter()
        .find(|(found, _)| found == id)
        .map(|(_, name)| name)
        .unwrap()
}

const CLAUDE_SETTINGS: &str = r#"{
    "permissions": {
        "allow": ["Bash(npm test:*)"]
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./lint.sh"}]
            }
        ],
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [{"type": "command", "command": "echo hello"}]
            }
        ]
    },
    "model": "opus"
}
"#;

#[test]
fn init_keeps_foreign_hooks_is_idempotent_and_uninstall_is_exact() {
    let p = Project::empty();
    git(p.root(), &["init", "-q"]);
    p.write(".claude/settings.json", CLAUDE_SETTINGS);
    p.write(".gemini/settings.json", "{\"theme\": \"dark\"}\n");
    let out = p.ok(&["init", "--bin", &bin()]);
    // Agents found by their folders: Claude Code and Gemini only.
    assert!(out.contains("updated   .claude/settings.json"), "{out}");
    assert!(out.contains("updated   .gemini/settings.json"), "{out}");
    assert!(!p.root().join(".cursor").exists() && !p.root().join(".codex").exists());
    assert!(
        out.contains(&format!("hooks run {} (given with --bin)", bin())),
        "{out}"
    );

    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["permissions"]["allow"][0], "Bash(npm test:*)");
    assert_eq!(settings["model"], "opus");
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./lint.sh"
    );
    let start = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 2, "the foreign SessionStart hook stays");
    assert_eq!(start[1]["matcher"], "startup|clear|compact");
    assert_eq!(
        start[1]["hooks"][0]["command"],
        format!("{} retrieve --agent claude-code", bin())
    );
    assert_eq!(
        settings["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"],
        30
    );
    // Key order and the 4-space indentation are the file's own.
    let text = p.read(".claude/settings.json");
    assert!(text.starts_with("{\n    \"permissions\""), "{text}");
    assert_eq!(p.read(".claude/settings.json.bak"), CLAUDE_SETTINGS);
    let gemini: Value = serde_json::from_str(&p.read(".gemini/settings.json")).unwrap();
    assert_eq!(
        gemini["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
        10000
    );
    assert!(p
        .read(".claude/commands/recall.md")
        .contains(&format!("{} recall \"$ARGUMENTS\"", bin())));

    // A second init changes nothing at all.
    let before = snapshot(p.root());
    let again = p.ok(&["init", "--bin", &bin()]);
    assert!(
        !again.contains("updated") && !again.contains("created"),
        "{again}"
    );
    assert_eq!(snapshot(p.root()), before);

    // Uninstall gives back the original settings, key for key.
    let out = p.ok(&["uninstall"]);
    assert!(
        out.contains("removed   .claude/commands/recall.md"),
        "{out}"
    );
    let restored: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert_eq!(
        restored,
        serde_json::from_str::<Value>(CLAUDE_SETTINGS).unwrap()
    );
    assert!(
        !p.root().join(".claude/settings.json.bak").exists(),
        "restored exactly: no .bak left"
    );
    // Back to the user's own bytes, one-line formatting and all.
    assert_eq!(p.read(".gemini/settings.json"), "{\"theme\": \"dark\"}\n");
    assert!(!p.root().join(".claude/commands").exists());
    assert!(p.thehook().join("config.yaml").exists(), "memory is kept");
    // Nothing left to remove.
    let out = p.ok(&["uninstall"]);
    assert!(!out.contains("removed"), "{out}");
}

#[test]
fn files_init_created_are_removed_by_uninstall() {
    let p = Project::empty();
    p.ok(&["init", "--agent", "cursor,codex", "--bin", &bin()]);
    let cursor: Value = serde_json::from_str(&p.read(".cursor/hooks.json")).unwrap();
    assert_eq!(cursor["version"], 1);
    assert_eq!(
        cursor["hooks"]["sessionStart"][0]["command"],
        format!("{} retrieve --agent cursor", bin())
    );
    let codex: Value = serde_json::from_str(&p.read(".codex/hooks.json")).unwrap();
    assert_eq!(
        codex["hooks"]["SessionStart"][0]["matcher"],
        "startup|clear|compact"
    );
    // Codex clamps SessionEnd's timeout to 3 s: init writes what Codex runs.
    let end = &codex["hooks"]["SessionEnd"][0]["hooks"][0];
    assert_eq!(end["command"], format!("{} capture --agent codex", bin()));
    assert_eq!(end["timeout"], 3);
    // Each hook trusted by hash in Codex's config (under the test HOME), and
    // the project's own trust left to the user, with the step to take.
    let config = p.read("home/.codex/config.toml");
    assert_eq!(
        config.matches("trusted_hash = \"sha256:").count(),
        5,
        "{config}"
    );
    assert!(config.contains(":session_end:0:0\"]"), "{config}");
    assert!(config.contains(":user_prompt_submit:0:0\"]"), "{config}");
    assert!(p
        .read(".cursor/commands/recall.md")
        .contains("recall \"$ARGUMENTS\""));
    p.ok(&["uninstall"]);
    assert!(
        !p.root().join(".cursor").exists(),
        "init created .cursor/: all of it goes"
    );
    assert!(!p.root().join(".codex").exists());
    assert!(
        !p.root().join("home/.codex/config.toml").exists(),
        "the trust entries were all the config held: the file goes"
    );
}

#[test]
fn a_moved_thehook_replaces_its_hook_instead_of_adding_one() {
    let p = Project::empty();
    p.ok(&["init", "--agent", "claude", "--bin", "/opt/old/thehook"]);
    p.ok(&["init", "--agent", "claude", "--bin", &bin()]);
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    let start = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 1, "{settings}");
    assert!(start[0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .starts_with(&bin()));
    // The file held only thehook's hooks: no backup, and uninstall deletes it.
    assert!(!p.root().join(".claude/settings.json.bak").exists());
    p.ok(&["uninstall"]);
    assert!(!p.root().join(".claude").exists());
}

#[test]
fn a_bin_path_with_spaces_is_quoted_and_recognised_again() {
    let p = Project::empty();
    let args = [
        "init",
        "--agent",
        "claude",
        "--bin",
        "/opt/my tools/thehook",
    ];
    p.ok(&args);
    p.ok(&args);
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    let start = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 1, "{settings}");
    assert_eq!(
        start[0]["hooks"][0]["command"],
        "'/opt/my tools/thehook' retrieve --agent claude-code"
    );
}

#[test]
fn init_sets_up_the_git_root_not_a_parent_with_stray_memory() {
    let p = Project::empty();
    p.write(
        ".thehook/knowledge/notes.md",
        "- stray memory in a parent folder\n",
    );
    std::fs::create_dir_all(p.root().join("repo/src")).unwrap();
    git(&p.root().join("repo"), &["init", "-q"]);
    let sub = p.root().join("repo/src");
    let out = p
        .cmd(&["init", "--agent", "claude", "--bin", &bin()])
        .arg("-C")
        .arg(&sub)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(p.root().join("repo/.claude/settings.json").is_file());
    assert!(p.root().join("repo/.thehook/config.yaml").is_file());
    assert!(!p.root().join(".claude").exists());
}

#[test]
fn a_symlinked_settings_file_stays_a_symlink() {
    let p = Project::empty();
    p.write("dotfiles/claude.json", "{\"model\": \"opus\"}\n");
    std::fs::create_dir_all(p.root().join(".claude")).unwrap();
    std::os::unix::fs::symlink(
        p.root().join("dotfiles/claude.json"),
        p.root().join(".claude/settings.json"),
    )
    .unwrap();
    p.ok(&["init", "--agent", "claude", "--bin", &bin()]);
    let link = p.root().join(".claude/settings.json");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(p
        .read("dotfiles/claude.json")
        .contains("retrieve --agent claude-code"));
}

#[test]
fn hooks_with_arguments_of_another_version_exit_0_silently() {
    let p = repo("claude");
    for args in [
        &["retrieve", "--agent", "opencode"][..],
        &["capture", "--some-future-flag"][..],
    ] {
        let out = p.cmd(args).write_stdin("{}").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{args:?}");
    }
    // Other commands still report usage errors.
    assert_eq!(p.run(&["recall", "--bogus"]).0, 2);
}

#[test]
fn settings_that_are_not_json_are_refused_and_left_alone() {
    let p = Project::empty();
    let broken = "{\n  // my hooks\n  \"hooks\": {},\n}\n";
    p.write(".claude/settings.json", broken);
    let (code, out, err) = p.run(&["init", "--agent", "claude", "--bin", &bin()]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains(".claude/settings.json: is not valid JSON"),
        "{err}"
    );
    assert!(err.contains("fix: make it valid JSON"), "{err}");
    assert_eq!(p.read(".claude/settings.json"), broken);
    assert!(!p.root().join(".claude/settings.json.bak").exists());
}

#[test]
fn global_init_writes_the_user_level_files() {
    let p = Project::empty();
    std::fs::create_dir_all(p.home().join(".codex")).unwrap();
    let out = p.ok(&["init", "--global", "--bin", &bin()]);
    assert!(out.contains(".codex/hooks.json"), "{out}");
    assert!(p.home().join(".codex/hooks.json").is_file());
    assert!(!p.root().join(".codex").exists() && !p.thehook().exists());
    p.ok(&["uninstall", "--global"]);
    assert!(!p.home().join(".codex/hooks.json").exists());
}

#[test]
fn without_thehook_on_path_init_says_how_to_install() {
    let p = Project::empty();
    let out = p
        .cmd(&["init", "--agent", "claude"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success());
    // The test binary lives in target/: not a stable place for hooks.
    assert!(
        stderr.contains("no installed thehook was found on PATH"),
        "{stderr}"
    );
    assert!(stderr.contains("cargo install"), "{stderr}");
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "thehook retrieve --agent claude-code"
    );
}

fn snapshot(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = crate::common::walk(root)
        .into_iter()
        .filter(|p| {
            !p.components()
                .any(|c| c.as_os_str() == ".git" || c.as_os_str() == "index")
        })
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn uninstall_goes_on_past_a_settings_file_it_cannot_read() {
    let p = Project::empty();
    p.ok(&["init", "--agent", "claude,gemini", "--bin", &bin()]);
    let broken = "{\n  // edited by hand\n  \"hooks\": {}\n}\n";
    p.write(".gemini/settings.json", broken);
    let out = p.ok(&["uninstall"]);
    assert!(out.contains("removed   .claude/settings.json"), "{out}");
    assert!(
        out.contains("kept      .gemini/settings.json  left as it is"),
        "{out}"
    );
    assert_eq!(p.read(".gemini/settings.json"), broken);
}

#[test]
fn cursor_running_claude_hooks_is_captured_once() {
    let end = |p: &Project| {
        json!({"session_id": "c0ffee", "conversation_id": "c0ffee", "cursor_version": "2.1.0",
               "workspace_roots": [p.root()], "hook_event_name": "sessionEnd", "reason": "completed"})
        .to_string()
    };
    // (The worker is not started: the queue is what is checked.)
    // Only Claude Code's hooks wired: the Claude hook captures, as Cursor.
    let only_claude = repo("claude");
    let out = only_claude
        .cmd(&["capture", "--agent", "claude-code"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(end(&only_claude))
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
    let job: Value = serde_json::from_str(&only_claude.read(".thehook/queue/c0ffee.json")).unwrap();
    assert_eq!(job["agent"], "cursor");
    // Cursor's own hook wired too: the Claude hook leaves it to that one.
    let both = repo("claude,cursor");
    both.cmd(&["capture", "--agent", "claude-code"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(end(&both))
        .output()
        .unwrap();
    assert!(!both.thehook().join("queue/c0ffee.json").exists());
    both.cmd(&["capture", "--agent", "cursor"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(end(&both))
        .output()
        .unwrap();
    assert!(both.thehook().join("queue/c0ffee.json").exists());
}

#[test]
fn nothing_is_queued_when_capture_is_off() {
    let p = repo("claude");
    p.write(".thehook/config.yaml", "capture:\n  enabled: false\n");
    let out = p
        .cmd(&["capture", "--agent", "claude-code"])
        .write_stdin(
            json!({"session_id": "s9", "transcript_path": "/t/s9.jsonl", "cwd": p.root(),
                   "hook_event_name": "SessionEnd", "reason": "other"})
            .to_string(),
        )
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
    assert!(!p.thehook().join("queue/s9.json").exists());
    assert!(p
        .read(".thehook/logs/hooks.log")
        .contains("capture.enabled is off"));
    // The sweep too: an old, uncaptured transcript of this project stays unqueued.
    let root = p.root().canonicalize().unwrap();
    let slug: String = root
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let rel = format!("home/.claude/projects/{slug}/old-1.jsonl");
    p.write(
        &rel,
        json!({"type": "user", "uuid": "u1", "sessionId": "old-1", "cwd": root,
               "message": {"role": "user", "content": "fix the login"}})
        .to_string(),
    );
    age(
        &p.thehook().join("config.yaml"),
        Duration::from_secs(3 * 3600),
    );
    age(&p.root().join(&rel), Duration::from_secs(3600));
    p.ok(&["retrieve", "--agent", "claude-code", "--background"]);
    assert!(!p.thehook().join("queue/old-1.json").exists());
}
