//! Where you left off (session start) and the prompt hook, through the
//! binary on a real git repository with branches.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{git, Project};

/// A session file as capture writes it: facts in the front matter.
fn session(p: &Project, n: u32, day: u32, branch: &str, files: &[&str], did: &str) {
    let files: String = files.iter().map(|f| format!("- {f}\n")).collect();
    p.write(
        &format!(".thehook/sessions/2026-03-{day:02}-1000-s{n}.md"),
        format!(
            "---\nsession_id: s{n}\nagent: claude-code\ndate: 2026-03-{day:02}T10:00:00Z\nbranch: {branch}\ntitle: session {n}\nfiles:\n{files}---\n## Session Summary\n- **What was done**: {did}\n"
        ),
    );
}

/// A repository on branch `feat/parser` (one commit of its own on
/// src/parser.rs since main), with src/lexer.rs changed and not committed;
/// sessions on this branch, on those files, and newer ones elsewhere.
fn repository_with_history() -> Project {
    let p = Project::empty();
    let root = p.root();
    git(root, &["init", "-q", "-b", "main"]);
    for f in ["src/parser.rs", "src/lexer.rs", "src/cli.rs", "README.md"] {
        p.write(f, "// v1\n");
    }
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "start"]);
    for n in 0..8 {
        p.write("README.md", format!("// v{n}\n"));
        git(root, &["commit", "-q", "-am", "docs"]);
    }
    git(root, &["checkout", "-q", "-b", "feat/parser"]);
    p.write("src/parser.rs", "// v2\n");
    git(root, &["commit", "-q", "-am", "parse blocks"]);
    p.write("src/lexer.rs", "// v2\n");
    session(&p, 1, 2, "main", &["src/lexer.rs"], "lexer handles tabs");
    session(
        &p,
        2,
        3,
        "feat/parser",
        &["src/parser.rs"],
        "parser reads headings",
    );
    session(
        &p,
        3,
        4,
        "main",
        &["README.md"],
        "readme says how to install",
    );
    session(
        &p,
        4,
        5,
        "feat/parser",
        &["src/parser.rs"],
        "parser reads lists",
    );
    for n in 5..9 {
        session(
            &p,
            n,
            n + 1,
            "main",
            &["src/cli.rs", "README.md"],
            "cli flags",
        );
    }
    // As the capture leaves them: indexed by a sync with the model, whose
    // learned check a hook's own sync cannot run (a session file a hook
    // indexes first shows neither title nor gist until one has).
    p.ok(&["reindex"]);
    p
}

fn section(block: &str, title: &str) -> String {
    block
        .split("\n## ")
        .find(|s| s.starts_with(title))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn session_start_names_the_branchs_sessions_then_those_on_the_files_in_play_then_the_latest() {
    let p = repository_with_history();
    let block = p.injected();
    // The branch's own (s4, s2, newest first); the uncommitted lexer's (s1);
    // the latest (s8, s7) for the rest.
    insta::assert_snapshot!(section(&block, "Where you left off"), @r"
    Where you left off
    - 2026-03-05, feat/parser: session 4: parser reads lists (.thehook/sessions/2026-03-05-1000-s4.md:11)
    - 2026-03-03, feat/parser: session 2: parser reads headings (.thehook/sessions/2026-03-03-1000-s2.md:11)
    - 2026-03-02, main: session 1: lexer handles tabs (.thehook/sessions/2026-03-02-1000-s1.md:11)
    - 2026-03-09, main: session 8: cli flags (.thehook/sessions/2026-03-09-1000-s8.md:12)
    - 2026-03-08, main: session 7: cli flags (.thehook/sessions/2026-03-08-1000-s7.md:12)
    ");
    // On main, with nothing uncommitted: main's own sessions, newest first,
    // then one on the latest commits' file (README.md; of equals the newer),
    // then the latest.
    git(p.root(), &["checkout", "-q", "--", "src/lexer.rs"]);
    git(p.root(), &["checkout", "-q", "main"]);
    let block = p.injected();
    let left_off = section(&block, "Where you left off");
    let names: Vec<&str> = left_off
        .lines()
        .skip(1)
        .map(|l| l.split(": ").nth(1).unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            "session 8",
            "session 7",
            "session 6",
            "session 5",
            "session 4"
        ],
        "{block}"
    );
}

/// The names "Where you left off" gives, in order.
fn left_off_names(p: &Project) -> Vec<String> {
    let block = p.injected();
    section(&block, "Where you left off")
        .lines()
        .skip(1)
        .map(|l| l.split(": ").nth(1).unwrap_or_default().to_string())
        .collect()
}

/// A branch says what it is about in its name and its commits' subjects:
/// a session that changed a file those words name is named at session
/// start, however far back, and not on a branch that says something else.
#[test]
fn session_start_names_a_session_on_a_file_the_branch_names_in_words() {
    let p = Project::empty();
    let root = p.root();
    git(root, &["init", "-q", "-b", "main"]);
    for f in ["src/token_usage.rs", "src/cli.rs"] {
        p.write(f, "// v1\n");
    }
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "start"]);
    session(
        &p,
        1,
        2,
        "main",
        &["src/token_usage.rs"],
        "tokens are counted",
    );
    for n in 2..12 {
        session(&p, n, n + 1, "main", &["src/cli.rs"], "cli flags");
    }
    p.ok(&["reindex"]);
    // Half of the name (`token`, not `usage`) names no file.
    git(root, &["checkout", "-q", "-b", "feat/token-limit"]);
    p.write("src/cli.rs", "// v2\n");
    git(root, &["commit", "-q", "-am", "Cap the token count"]);
    let names = left_off_names(&p);
    assert!(!names.contains(&"session 1".to_string()), "{names:?}");
    git(root, &["checkout", "-q", "main"]);
    git(root, &["checkout", "-q", "-b", "feat/count"]);
    p.write("src/cli.rs", "// v3\n");
    git(root, &["commit", "-q", "-am", "Show the token usage"]);
    let names = left_off_names(&p);
    assert_eq!(
        names.first().map(String::as_str),
        Some("session 1"),
        "{names:?}"
    );
}

fn prompt_payload(agent: &str, session: &str, prompt: &str, root: &Path) -> String {
    let event = if agent == "gemini" {
        "BeforeAgent"
    } else {
        "UserPromptSubmit"
    };
    if agent == "opencode" {
        let session = format!("ses_{session}");
        return json!({"session_id": session, "cwd": root, "hook_event_name": "UserPromptSubmit", "prompt": prompt})
            .to_string();
    }
    if agent == "copilot" {
        return json!({"sessionId": session, "timestamp": 1795651152580u64, "cwd": root, "prompt": prompt})
            .to_string();
    }
    let mut payload = json!({
        "session_id": session,
        "transcript_path": null,
        "cwd": root,
        "hook_event_name": event,
        "prompt": prompt,
    });
    if agent == "cursor" {
        payload["conversation_id"] = json!(session);
        payload["cursor_version"] = json!("2.1");
        payload["workspace_roots"] = json!([root]);
    }
    payload.to_string()
}

/// Runs the prompt hook; its stdout.
fn on_prompt(p: &Project, agent: &str, session: &str, prompt: &str) -> String {
    let out = p
        .cmd(&["prompt", "--agent", agent])
        .write_stdin(prompt_payload(agent, session, prompt, p.root()))
        .output()
        .unwrap();
    assert!(out.status.success(), "a hook exits 0");
    String::from_utf8(out.stdout).unwrap()
}

const ASK: &str = "the parser drops nested lists again, look at src/parser.rs";

#[test]
fn the_prompt_hook_speaks_each_agents_protocol() {
    let p = repository_with_history();
    for agent in ["claude-code", "codex", "gemini", "copilot", "opencode"] {
        let out = on_prompt(&p, agent, &format!("{agent}-1"), ASK);
        let answer: Value = serde_json::from_str(&out).unwrap();
        insta::assert_snapshot!(agent, serde_json::to_string_pretty(&answer).unwrap());
    }
    // Cursor's beforeSubmitPrompt can only allow or block: nothing to say.
    assert_eq!(on_prompt(&p, "cursor", "cursor-1", ASK), "");
}

#[test]
fn the_prompt_hook_never_gives_an_item_twice_in_a_session() {
    let p = repository_with_history();
    let first = on_prompt(&p, "claude-code", "a", ASK);
    assert!(first.contains("parser reads"), "{first}");
    // The same ask again: everything relevant was given already.
    assert_eq!(on_prompt(&p, "claude-code", "a", ASK), "");
    // Another session is given it afresh.
    assert_eq!(on_prompt(&p, "claude-code", "b", ASK), first);
    // What session start gave a session is not given again at its prompt.
    let payload = json!({"session_id": "c", "cwd": p.root(), "hook_event_name": "SessionStart", "source": "startup"});
    p.cmd(&["retrieve", "--agent", "claude-code"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(payload.to_string())
        .assert()
        .success();
    let after_start = on_prompt(&p, "claude-code", "c", ASK);
    assert!(
        !after_start.contains("2026-03-05-1000-s4.md:11")
            && !after_start.contains("2026-03-03-1000-s2.md:11"),
        "given at session start: {after_start}"
    );
}

#[test]
fn a_prompt_memory_knows_nothing_about_adds_nothing() {
    let p = repository_with_history();
    assert_eq!(
        on_prompt(&p, "claude-code", "a", "what is the capital of Mongolia"),
        ""
    );
    // A wake-up no person typed is not searched.
    let payload = json!({"session_id": "w", "cwd": p.root(), "hook_event_name": "UserPromptSubmit", "prompt": ASK, "source": "loop_wakeup"});
    p.cmd(&["prompt", "--agent", "claude-code"])
        .write_stdin(payload.to_string())
        .assert()
        .success()
        .stdout("");
    // Off by config: nothing, and doctor says the wired hook adds nothing.
    p.ok(&["init", "--agent", "claude"]);
    p.write(".thehook/config.yaml", "retrieval:\n  on_prompt: false\n");
    assert_eq!(on_prompt(&p, "claude-code", "a", ASK), "");
    let (_, doctor, _) = p.run(&["doctor"]);
    assert!(
        doctor.contains("runs the prompt hook, but retrieval.on_prompt is off"),
        "{doctor}"
    );
    // Bad stdin: the hook still exits 0 and says nothing.
    p.cmd(&["prompt", "--agent", "claude-code"])
        .write_stdin("{not json")
        .assert()
        .success()
        .stdout("");
}

#[test]
fn a_prompt_that_says_a_files_name_finds_the_sessions_that_changed_it() {
    let p = repository_with_history();
    // "lexer" alone is one shared word, below the floor of a word match;
    // src/lexer.rs, which one session in eight changed, names that session.
    let out = on_prompt(&p, "claude-code", "a", "time to rework the lexer");
    assert!(
        out.contains("session 1: lexer handles tabs (.thehook/sessions/2026-03-02-1000-s1.md:11)"),
        "{out}"
    );
    // README.md, which most sessions changed, names none of them.
    assert_eq!(on_prompt(&p, "claude-code", "b", "tidy the readme"), "");
}
