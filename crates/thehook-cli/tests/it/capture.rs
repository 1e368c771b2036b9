//! The capture pipeline end to end: the session-end hook, the detached
//! worker, the LLM (fake CLIs in tests/fixtures/llm that behave like the
//! real ones, failures included), redaction, failed/ and --retry, SIGKILL,
//! and consolidation.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{json, Value};
use thehook_core::store::FrontMatter;

fn fake(name: &str) -> PathBuf {
    repo_root()
        .join("crates/thehook-cli/tests/fixtures/llm")
        .join(name)
}

fn transcript(rel: &str) -> PathBuf {
    repo_root()
        .join("crates/thehook-core/tests/fixtures/transcripts")
        .join(rel)
}

/// A real Cursor transcript, as a `--transcript` argument.
fn cursor_transcript() -> String {
    transcript("cursor/jazzyalex-test-session.jsonl")
        .to_string_lossy()
        .into_owned()
}

/// A project whose LLM is the fake `llm`, timing out after 1 s, with
/// consolidation every `every` sessions (0: not in these tests).
fn project(llm: &str, every: usize) -> Project {
    let p = Project::empty();
    configure(&p, llm, every, true);
    p
}

fn configure(p: &Project, llm: &str, every: usize, redact: bool) {
    let every = if every == 0 { 1000 } else { every };
    p.write(
        ".thehook/config.yaml",
        format!(
            "llm:\n  cli: command\n  command: [{:?}]\n  timeout_secs: 1\nconsolidation:\n  every_n_sessions: {every}\ncapture:\n  redact_secrets: {redact}\n",
            fake(llm)
        ),
    );
}

fn llm_log(p: &Project) -> PathBuf {
    p.root().join("llm-log")
}

/// `thehook` with the fake's log folder and its own path for the fake that
/// runs hooks.
fn cmd(p: &Project, args: &[&str]) -> assert_cmd::Command {
    assert_cmd::Command::from_std(std_cmd(p, args))
}

/// Runs `thehook args` with the fake's log: (exit code, stdout, stderr).
fn run(p: &Project, args: &[&str]) -> (i32, String, String) {
    let out = cmd(p, args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn std_cmd(p: &Project, args: &[&str]) -> std::process::Command {
    let mut c = p.std_cmd(args);
    c.env("FAKE_LLM_LOG", llm_log(p));
    c.env("THEHOOK_BIN", assert_cmd::cargo::cargo_bin("thehook"));
    c
}

/// The prompts the fake LLM received.
fn prompts(p: &Project) -> Vec<String> {
    let mut files: Vec<PathBuf> = walk(&llm_log(p))
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "stdin"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

fn calls(p: &Project) -> Vec<Value> {
    walk(&llm_log(p))
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json") && f.file_stem().unwrap() != "hooks")
        .map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect()
}

fn session_files(p: &Project) -> Vec<PathBuf> {
    walk(&p.thehook().join("sessions"))
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
        .collect()
}

fn files_in(p: &Project, dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(p.thehook().join(dir))
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Queues a session the way the session-end hook does, without starting
/// the worker.
fn queue(p: &Project, session: &str, transcript: &Path) {
    let payload = json!({"session_id": session, "transcript_path": transcript, "cwd": p.root(),
                         "hook_event_name": "SessionEnd", "reason": "exit"});
    cmd(p, &["capture", "--agent", "claude-code"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(payload.to_string())
        .assert()
        .success()
        .stdout("");
}

fn front_matter(text: &str) -> FrontMatter {
    thehook_core::store::front_matter(text).expect("a front matter")
}

/// Processes whose working folder is inside `dir` (the fake LLMs run in
/// the project root): none may outlive the worker.
fn processes_in(dir: &Path) -> Vec<String> {
    let dir = dir.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| std::fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(&dir)))
        .filter(|e| alive(&e.file_name().to_string_lossy()))
        .map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).replace('\0', " ")
        })
        .collect()
}

/// Whether a process runs (a zombie waiting for a parent that does not
/// reap, as PID 1 in a container may not, does not run).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

/// What Claude Code's next session start injects (without the background half).
fn next_session_context(p: &Project) -> String {
    let start = json!({"session_id": "next", "cwd": p.root(), "hook_event_name": "SessionStart", "source": "startup"});
    let out = cmd(p, &["retrieve", "--agent", "claude-code"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(start.to_string())
        .output()
        .unwrap();
    let context: Value = serde_json::from_slice(&out.stdout).unwrap();
    context["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_session_end_hook_returns_at_once_and_the_detached_worker_captures() {
    let p = project("good", 0);
    let payload = json!({"session_id": "1af7fc5e", "transcript_path": transcript("claude-code/d-kimuson-1af7fc5e.jsonl"),
                         "cwd": p.root(), "hook_event_name": "SessionEnd", "reason": "exit"});
    let out = cmd(&p, &["capture", "--agent", "claude-code"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    wait_for("the worker", Duration::from_secs(60), || {
        files_in(&p, "queue").is_empty() && !session_files(&p).is_empty()
    });
    let files = session_files(&p);
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let meta = front_matter(&text);
    assert_eq!(meta.session_id.as_deref(), Some("1af7fc5e"));
    assert_eq!(meta.agent.as_deref(), Some("claude-code"));
    // Consolidation state is in .thehook/consolidated.txt, not here.
    assert_eq!(meta.consolidated, None);
    assert_eq!(meta.extracted, None, "{text}");
    for section in [
        "## Session Summary",
        "## Conventions Detected",
        "## Architecture Decisions",
        "## Gotchas",
    ] {
        assert!(text.contains(section), "{section} missing:\n{text}");
    }
    // Named after the date, the title the LLM gave and the session id
    // (teammates' clones never pick one name for two sessions).
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    let title = meta.title.as_deref().unwrap();
    assert!(
        name.ends_with(&format!(
            "-{}-1af7fc5e.md",
            title.to_lowercase().replace(' ', "-")
        )),
        "{name} / {title}"
    );
    // The prompt held the condensed conversation; the child knew it was one.
    let prompt = &prompts(&p)[0];
    assert!(prompt.contains("## Session Summary") && prompt.contains("--- transcript ---"));
    assert_eq!(calls(&p)[0]["THEHOOK_CHILD"], "1");
    // Indexed: recall finds what the LLM distilled.
    let hits = p.recall_json("source of truth for memory", &["--type", "adr"]);
    assert!(hit_texts(&hits)[0].contains("Markdown files are the source of truth"));
    assert!(files_in(&p, "failed").is_empty());
}

/// Runs the worker with `llm.cli: auto` and only `dir` (of the fakes)
/// before the system folders on PATH; returns the recorded call.
fn auto_detected_call(dir: &str) -> Value {
    let p = Project::empty();
    p.write(".thehook/config.yaml", "llm:\n  cli: auto\n");
    queue(&p, "s-auto", &transcript("claude-code/marot-short.jsonl"));
    let path = format!("{}:/usr/bin:/bin", fake(dir).display());
    cmd(&p, &["capture", "--worker"])
        .env("PATH", path)
        .assert()
        .success();
    assert_eq!(session_files(&p).len(), 1);
    let call = calls(&p).remove(0);
    assert_eq!(call["THEHOOK_CHILD"], "1");
    call
}

#[test]
fn claude_runs_with_hooks_disabled_and_no_session_of_its_own() {
    let call = auto_detected_call("");
    assert_eq!(call["mode"], "claude");
    // A plain one-shot completion on the small model: thehook's prompt only.
    assert_eq!(
        call["argv"],
        json!([
            "-p",
            "--model",
            "haiku",
            "--system-prompt",
            "You turn coding session transcripts into project memory. Answer exactly in the format the prompt asks for, nothing else.",
            "--tools",
            "",
            "--strict-mcp-config",
            "--setting-sources",
            "user",
            "--disable-slash-commands",
            "--settings",
            r#"{"disableAllHooks":true}"#,
            "--no-session-persistence",
            "--output-format",
            "json"
        ])
    );
}

#[test]
fn every_llm_call_is_billed_with_what_the_cli_reported_or_an_estimate() {
    let p = Project::empty();
    p.write(
        ".thehook/config.yaml",
        "llm:\n  cli: command\n  command: [good]\n",
    );
    queue(&p, "s-bill", &transcript("claude-code/marot-short.jsonl"));
    let path = format!("{}:/usr/bin:/bin", fake("").display());
    cmd(&p, &["capture", "--worker"])
        .env("PATH", &path)
        .assert()
        .success();
    // claude reports its usage in its JSON result: recorded as is.
    let claude = Project::empty();
    claude.write(
        ".thehook/config.yaml",
        "llm:\n  cli: claude\n  model: sonnet\n",
    );
    queue(
        &claude,
        "s-bill",
        &transcript("claude-code/marot-short.jsonl"),
    );
    cmd(&claude, &["capture", "--worker"])
        .env("PATH", &path)
        .assert()
        .success();
    let line = |p: &Project| -> Value {
        let log = p.read(".thehook/logs/llm.log");
        let json = log.lines().last().unwrap().split_once(' ').unwrap().1;
        serde_json::from_str(json).unwrap()
    };
    let reported = line(&claude);
    assert_eq!(reported["cli"], "claude");
    assert_eq!(
        reported["model"], "sonnet",
        "llm.model wins over the small default"
    );
    assert_eq!(reported["ok"], true);
    assert_eq!(reported["estimated"], false);
    assert_eq!(reported["cost_usd"], 0.0021);
    assert!(reported["input_tokens"].as_u64().unwrap() > 100);
    let estimated = line(&p);
    assert_eq!(estimated["cli"], "command");
    assert_eq!(estimated["estimated"], true);
    assert_eq!(estimated["cost_usd"], Value::Null);
    assert_eq!(
        estimated["input_tokens"].as_u64().unwrap(),
        estimated["prompt_bytes"].as_u64().unwrap() / 4
    );
    // `status` adds the calls up.
    let status: Value = serde_json::from_str(&claude.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["llm"]["today"]["calls"], 1);
    assert_eq!(status["llm"]["today"]["cost_usd"], 0.0021);
    assert_eq!(status["llm"]["last_30_days"]["calls"], 1);
    let text = p.ok(&["status"]);
    assert!(text.contains("llm          today 1 call(s)"), "{text}");
    assert!(text.contains("$0.0000 (1 estimated)"), "{text}");
}

#[test]
fn without_claude_auto_runs_cursor_agent() {
    let call = auto_detected_call("cursor-only");
    assert_eq!(call["mode"], "cursor-agent");
    // Read-only ask mode on Cursor's router, in an empty folder of its own
    // (no project rules, MCP servers or hooks), no --force, no --approve-mcps.
    let mut argv: Vec<&str> = call["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    // The prompt comes last: cursor-agent -p ignores piped stdin.
    let prompt = argv.pop().unwrap();
    assert!(prompt.contains("--- transcript ---"), "{prompt}");
    let workspace = std::env::temp_dir().join("thehook-cursor-llm");
    assert_eq!(
        argv,
        [
            "-p",
            "--output-format",
            "json",
            "--mode",
            "ask",
            "--trust",
            "--model",
            "auto",
            "--workspace",
            workspace.to_str().unwrap(),
        ]
    );
}

/// Every way the LLM can fail ends in a heuristic session file and the
/// transcript in failed/, with nothing left running; `--retry` with a
/// working LLM then replaces the file in place.
#[test]
fn failing_llms_never_lose_the_session_and_retry_finishes_it() {
    let cases = [
        ("slow", "no answer within 1 s"),
        ("hang", "no answer within 1 s"),
        (
            "garbage",
            "the LLM's answer was not usable: the answer has no `## Session Summary` section",
        ),
        (
            "fail",
            "the LLM CLI failed (exit status: 1): Error: rate limit exceeded (429)",
        ),
    ];
    for (llm, reason) in cases {
        let p = project(llm, 0);
        queue(
            &p,
            "s-1",
            &transcript("claude-code/drmaciver-stop-hook.jsonl"),
        );
        let began = Instant::now();
        cmd(&p, &["capture", "--worker"]).assert().success();
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "{llm}: the timeout was not enforced"
        );
        assert!(
            processes_in(p.root()).is_empty(),
            "{llm} left {:?}",
            processes_in(p.root())
        );
        if let Ok(pid) = std::fs::read_to_string(llm_log(&p).join("grandchild.pid")) {
            assert!(!alive(pid.trim()), "{llm}: its grandchild survived");
        }
        let files = session_files(&p);
        assert_eq!(files.len(), 1, "{llm}");
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert_eq!(
            front_matter(&text).extracted.as_deref(),
            Some("heuristic"),
            "{llm}"
        );
        assert!(text.contains("- **What was asked**:"), "{llm}:\n{text}");
        assert_eq!(files_in(&p, "queue"), Vec::<String>::new(), "{llm}");
        assert_eq!(
            files_in(&p, "failed"),
            ["s-1.json", "s-1.jsonl", "s-1.reason", "s-1.retry"],
            "{llm}"
        );
        let why = p.read(".thehook/failed/s-1.reason");
        assert!(why.contains(reason), "{llm}: {why}");
        // Tried again by itself in an hour, not at the next worker run.
        let plan: Value = serde_json::from_str(&p.read(".thehook/failed/s-1.retry")).unwrap();
        assert_eq!(plan["attempts"], 1, "{llm}");
        let next: jiff::Timestamp = plan["next_try"].as_str().unwrap().parse().unwrap();
        let in_an_hour = jiff::Timestamp::now() + jiff::SignedDuration::from_mins(59);
        assert!(next > in_an_hour, "{llm}: {next}");
        let asked = calls(&p).len();
        cmd(&p, &["capture", "--worker"]).assert().success();
        assert_eq!(calls(&p).len(), asked, "{llm}: retried at once");
        // The next session start says so.
        let context = next_session_context(&p);
        assert!(
            context.contains("1 session capture(s) failed"),
            "{llm}: {context}"
        );

        configure(&p, "good", 0, true);
        let out = cmd(&p, &["capture", "--retry"]).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("captured s-1"));
        assert_eq!(
            session_files(&p),
            files,
            "{llm}: retry must rewrite the same file"
        );
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert_eq!(front_matter(&text).extracted, None, "{llm}");
        assert!(files_in(&p, "failed").is_empty(), "{llm}");
    }
}

/// Past `llm.daily_budget` no LLM is asked: the session is written from
/// the transcript, the next session start says why in one line, and the
/// capture is tried again by itself the next day, within that day's budget.
#[test]
fn the_daily_budget_stops_llm_calls_and_the_capture_waits_for_tomorrow() {
    let p = project("good", 0);
    let config = p.read(".thehook/config.yaml");
    p.write(
        ".thehook/config.yaml",
        config.replace(
            "  timeout_secs: 1\n",
            "  timeout_secs: 1\n  daily_budget: {calls: 1}\n",
        ),
    );
    let session = transcript("claude-code/drmaciver-stop-hook.jsonl");
    queue(&p, "s-1", &session);
    queue(&p, "s-2", &session);
    cmd(&p, &["capture", "--worker"]).assert().success();
    assert_eq!(calls(&p).len(), 1, "the budget allows one call");
    let heuristic: Vec<String> = session_files(&p)
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .filter(|t| front_matter(t).extracted.as_deref() == Some("heuristic"))
        .collect();
    assert_eq!(heuristic.len(), 1);
    let why = p.read(".thehook/failed/s-2.reason");
    assert!(
        why.starts_with("today's LLM budget is spent (1 of 1 calls; llm.daily_budget)"),
        "{why}"
    );
    let status: Value =
        serde_json::from_slice(&cmd(&p, &["status", "--json"]).output().unwrap().stdout).unwrap();
    assert_eq!(status["llm"]["today"]["calls"], 1);
    assert_eq!(status["llm"]["budget_spent"], "1 of 1 calls");

    let context = next_session_context(&p);
    let notes: Vec<&str> = context.lines().filter(|l| l.contains("budget")).collect();
    assert_eq!(notes.len(), 1, "{context}");
    assert!(
        notes[0].contains("today's LLM budget is spent (1 of 1 calls"),
        "{context}"
    );

    // Later today: nothing is asked, however often the worker runs.
    cmd(&p, &["capture", "--worker"]).assert().success();
    cmd(&p, &["capture", "--worker"]).assert().success();
    assert_eq!(calls(&p).len(), 1);
    // Tomorrow (the plan's time moved back, the day's calls forgotten).
    let plan: Value = serde_json::from_str(&p.read(".thehook/failed/s-2.retry")).unwrap();
    assert_eq!(
        plan["attempts"], 0,
        "a spent budget is not a failed attempt"
    );
    let tomorrow: jiff::Timestamp = plan["next_try"].as_str().unwrap().parse().unwrap();
    assert!(tomorrow > jiff::Timestamp::now());
    p.write(
        ".thehook/failed/s-2.retry",
        r#"{"attempts":0,"next_try":"2020-01-01T00:00:00Z"}"#,
    );
    std::fs::remove_file(p.thehook().join("logs/llm.log")).unwrap();
    cmd(&p, &["capture", "--worker"]).assert().success();
    assert_eq!(calls(&p).len(), 2);
    assert!(files_in(&p, "failed").is_empty());
    for f in session_files(&p) {
        let text = std::fs::read_to_string(f).unwrap();
        assert_eq!(front_matter(&text).extracted, None, "{text}");
    }
}

#[test]
fn without_any_llm_cli_the_session_is_still_captured() {
    let p = Project::empty();
    p.write(".thehook/config.yaml", "llm:\n  cli: auto\n");
    queue(
        &p,
        "s-none",
        &transcript("codex/madshn-rollout-20-34-25.jsonl"),
    );
    cmd(&p, &["capture", "--worker"])
        .env("PATH", "/usr/bin:/bin")
        .assert()
        .success();
    let text = std::fs::read_to_string(&session_files(&p)[0]).unwrap();
    assert_eq!(front_matter(&text).extracted.as_deref(), Some("heuristic"));
    // doctor says so, with the fix.
    let out = cmd(&p, &["doctor"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let doctor = String::from_utf8_lossy(&out.stdout);
    assert!(
        doctor.contains("warn llm")
            && doctor.contains("extracted: heuristic")
            && doctor.contains("thehook capture --retry"),
        "{doctor}"
    );
    let why = p.read(".thehook/failed/s-none.reason");
    assert!(
        why.starts_with(
            "no LLM CLI: none of `claude`, `cursor-agent`/`agent`, `codex`, `gemini`, `copilot` or `opencode` is on PATH; install one"
        ),
        "{why}"
    );
}

#[test]
fn the_llm_child_cannot_fire_thehook_hooks_again() {
    let p = project("hooks", 0);
    queue(
        &p,
        "s-hooks",
        &transcript("claude-code/entireio-1b3e6441.jsonl"),
    );
    cmd(&p, &["capture", "--worker"]).assert().success();
    let hooks: Value =
        serde_json::from_str(&std::fs::read_to_string(llm_log(&p).join("hooks.json")).unwrap())
            .unwrap();
    for run in hooks.as_array().unwrap() {
        assert_eq!(run["code"], 0, "{run}");
        assert_eq!(run["stdout"], "", "{run}");
    }
    // Nothing queued or captured for the session the child pretended to end.
    assert!(files_in(&p, "queue").is_empty());
    assert_eq!(session_files(&p).len(), 1);
    assert!(!std::fs::read_to_string(&session_files(&p)[0])
        .unwrap()
        .contains("spawned-by-llm"));
    // The hooks did nothing at all: not even a log line or a failed job.
    assert!(files_in(&p, "failed").is_empty());
    let hooks_log = std::fs::read_to_string(p.thehook().join("logs/hooks.log")).unwrap_or_default();
    assert!(!hooks_log.contains("spawned-by-llm"), "{hooks_log}");
}

#[test]
fn one_worker_at_a_time_and_it_takes_what_was_queued_meanwhile() {
    let p = Project::empty();
    p.write(
        ".thehook/config.yaml",
        format!(
            "llm:\n  cli: command\n  command: [{:?}]\n  timeout_secs: 3\n",
            fake("hang")
        ),
    );
    queue(&p, "first", &transcript("claude-code/marot-short.jsonl"));
    let mut a = std_cmd(&p, &["capture", "--worker"]).spawn().unwrap();
    wait_for("the first LLM call", Duration::from_secs(30), || {
        !prompts(&p).is_empty()
    });
    queue(
        &p,
        "second",
        &transcript("claude-code/entireio-1b3e6441.jsonl"),
    );
    let began = Instant::now();
    cmd(&p, &["capture", "--worker"]).assert().success();
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "the second worker waited"
    );
    assert!(p
        .read(".thehook/logs/worker.log")
        .contains("another capture worker is running"));
    assert!(a.wait().unwrap().success());
    assert!(files_in(&p, "queue").is_empty());
    assert_eq!(session_files(&p).len(), 2);
    assert_eq!(prompts(&p).len(), 2);
}

#[test]
fn sessions_with_the_same_title_and_time_never_share_a_file() {
    let p = project("good", 0);
    let t = transcript("claude-code/marot-short.jsonl");
    let ids = ["same-prefix-1", "same-prefix-2", "same-prefix-3"];
    for id in ids {
        queue(&p, id, &t);
    }
    cmd(&p, &["capture", "--worker"]).assert().success();
    let mut found: Vec<String> = session_files(&p)
        .iter()
        .map(|f| {
            front_matter(&std::fs::read_to_string(f).unwrap())
                .session_id
                .unwrap()
        })
        .collect();
    found.sort();
    assert_eq!(found, ids);
}

#[test]
fn a_damaged_job_is_set_aside_and_reported_not_queued_for_ever() {
    let p = project("good", 0);
    p.write(
        ".thehook/queue/broken.json",
        "{\"version\": 1, \"session_id\": ",
    );
    queue(&p, "fine", &transcript("claude-code/marot-short.jsonl"));
    cmd(&p, &["capture", "--worker"]).assert().success();
    assert!(files_in(&p, "queue").is_empty());
    assert_eq!(session_files(&p).len(), 1);
    assert_eq!(files_in(&p, "failed"), ["broken.json", "broken.reason"]);
    let why = p.read(".thehook/failed/broken.reason");
    assert!(
        why.contains("could not be read") && why.contains("fix:"),
        "{why}"
    );
    let status: Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["failed_captures"], 1);
    assert_eq!(status["queued_captures"], 0);
}

#[test]
fn a_resumed_session_updates_its_own_file() {
    let p = project("good", 0);
    let src = transcript("claude-code/marot-short.jsonl");
    let copy = p.root().join("t.jsonl");
    let lines: Vec<&str> = std::fs::read_to_string(&src)
        .unwrap()
        .leak()
        .lines()
        .collect();
    std::fs::write(&copy, lines[..lines.len() / 2].join("\n")).unwrap();
    queue(&p, "resumed", &copy);
    cmd(&p, &["capture", "--worker"]).assert().success();
    let first = session_files(&p);
    std::fs::write(&copy, lines.join("\n")).unwrap();
    queue(&p, "resumed", &copy);
    cmd(&p, &["capture", "--worker"]).assert().success();
    assert_eq!(session_files(&p), first);
    assert_eq!(prompts(&p).len(), 2);
    assert!(prompts(&p)[1].len() > prompts(&p)[0].len());
}

#[test]
fn a_transcript_captured_by_hand_reports_where_it_went() {
    let p = project("good", 0);
    let out = p.ok(&["capture", "--transcript", &cursor_transcript(), "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let s = &v["sessions"][0];
    assert_eq!(s["status"], "captured");
    let text = p.read(s["file"].as_str().unwrap());
    assert_eq!(front_matter(&text).agent.as_deref(), Some("cursor"));
    // A file that is not a transcript is a clear error, exit 2.
    p.write("notes.md", "# not a transcript\n");
    let (code, _, err) = run(
        &p,
        &[
            "capture",
            "--transcript",
            p.root().join("notes.md").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("markdown file") && err.contains("fix:"),
        "{err}"
    );
}

/// A transcript too large to read whole (a long session's, hundreds of MB)
/// is captured from its head and tail, and the worker's log says what was
/// left out; a GB of zeros (a sparse file) is refused at once, saying why,
/// not read into memory first (1 GB of it was, before).
#[test]
fn a_huge_transcript_is_captured_from_its_head_and_tail_and_zeros_refused() {
    let p = project("good", 0);
    let zeros = p.root().join("zeros.jsonl");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let (code, _, err) = run(&p, &["capture", "--transcript", zeros.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("1073 MB with no line end") && err.contains("not a JSONL transcript"),
        "{err}"
    );

    // A real transcript's lines, over and over, past the bound.
    let real = std::fs::read(transcript("claude-code/marot-short.jsonl")).unwrap();
    let huge = p.root().join("huge.jsonl");
    let times = (thehook_core::transcript::bounded::WHOLE_UP_TO as usize) / real.len() + 50;
    std::fs::write(&huge, real.repeat(times)).unwrap();
    let out = p.ok(&["capture", "--transcript", huge.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["sessions"][0]["status"], "captured", "{out}");
    let log = p.read(".thehook/logs/worker.log");
    assert!(log.contains("were not read"), "{log}");
}

/// An index that cannot be opened (here `data.mdb` is a folder, which no
/// repair can remove) must not hang the worker: it used to wait for ever on
/// the project lock it held itself. The session is written, and the next
/// sync indexes it.
#[test]
fn a_capture_with_an_index_that_cannot_open_writes_the_session_and_returns() {
    let p = project("good", 0);
    std::fs::create_dir_all(p.thehook().join("index/data.mdb")).unwrap();
    let mut capture = cmd(
        &p,
        &["capture", "--transcript", &cursor_transcript(), "--json"],
    );
    // A guard, not a timing: a hung worker is killed and the run fails.
    let out = capture.timeout(Duration::from_secs(60)).output().unwrap();
    assert!(
        out.status.success(),
        "the worker hung on its own lock (killed after 60 s): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(v["sessions"][0]["status"], "captured", "{v}");
    let file = v["sessions"][0]["file"].as_str().unwrap().to_string();
    assert!(p.read(&file).contains("agent: cursor"));
    let log = p.read(".thehook/logs/worker.log");
    assert!(log.contains("the index cannot be opened"), "{log}");
    assert!(
        log.contains(&format!("{file} is written but not indexed yet")),
        "{log}"
    );
}

/// The real transcripts of `../shared/testdata` (or `THEHOOK_TESTDATA`),
/// else the vendored copies of some of them.
fn corpus() -> PathBuf {
    if let Some(dir) = std::env::var_os("THEHOOK_TESTDATA") {
        return PathBuf::from(dir);
    }
    let shared = repo_root().join("../shared/testdata");
    if shared.is_dir() {
        shared
    } else {
        transcript("")
    }
}

/// Plants secrets at the start of every prose string (those with a space:
/// prompts, replies, commands, tool output) of `src`: one kind in turn, and
/// every kind in every 25th.
fn plant(src: &Path, dst: &Path) {
    let samples = crate::redact_samples::samples();
    let every = samples
        .iter()
        .map(|s| s.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let mut n = 0usize;
    let mut plant_in = |v: &mut Value| {
        fn walk(v: &mut Value, f: &mut dyn FnMut(&mut String)) {
            match v {
                Value::String(s) => f(s),
                Value::Array(a) => a.iter_mut().for_each(|x| walk(x, f)),
                Value::Object(o) => o.values_mut().for_each(|x| walk(x, f)),
                _ => {}
            }
        }
        walk(v, &mut |s: &mut String| {
            if s.len() > 10 && s.contains(' ') {
                // Every 25th string (the file's first included) gets every
                // kind, so each kind lands where the prompt reads too.
                let planted = if n.is_multiple_of(25) {
                    every.clone()
                } else {
                    samples[n % samples.len()].text.clone()
                };
                *s = format!("{planted} {s}");
                n += 1;
            }
        });
    };
    let text = std::fs::read_to_string(src).unwrap();
    let planted = match serde_json::from_str::<Value>(&text) {
        Ok(mut doc) => {
            plant_in(&mut doc);
            doc.to_string()
        }
        Err(_) => text
            .lines()
            .map(|l| match serde_json::from_str::<Value>(l) {
                Ok(mut v) => {
                    plant_in(&mut v);
                    v.to_string()
                }
                Err(_) => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    std::fs::write(dst, planted).unwrap();
}

/// Every byte of every file under `dir`.
fn all_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walk(dir)
        .into_iter()
        .map(|f| {
            let b = std::fs::read(&f).unwrap();
            (f, b)
        })
        .collect()
}

fn contains(hay: &[u8], needle: &str) -> bool {
    let needle = needle.as_bytes();
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn no_planted_secret_reaches_memory_or_the_llm() {
    let p = project("good", 0);
    let originals: Vec<PathBuf> = walk(&corpus())
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert!(originals.len() >= 13);
    let secrets: Vec<String> = crate::redact_samples::samples()
        .into_iter()
        .map(|s| s.secret)
        .collect();
    let mut planted = Vec::new();
    for (i, src) in originals.iter().enumerate() {
        let dst = p.root().join(format!(
            "planted/{i}-{}",
            src.file_name().unwrap().to_string_lossy()
        ));
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        plant(src, &dst);
        planted.push(dst);
    }
    // Once with a good LLM, once with one that fails (failed/ copies).
    for llm in ["good", "fail"] {
        configure(&p, llm, 0, true);
        for f in &planted {
            let (code, _, err) = run(&p, &["capture", "--transcript", f.to_str().unwrap()]);
            assert!(code <= 1, "{}: {err}", f.display());
        }
    }
    assert!(!files_in(&p, "failed").is_empty());
    let sent = prompts(&p);
    // Subagent-only and tool-only files have no conversation to send.
    assert!(sent.len() >= 8, "only {} prompts", sent.len());
    // The planted secrets reached the prompt as markers of many kinds
    // (a marker names the rule that found it, not the sample's label).
    let marker = regex::Regex::new(r"\[REDACTED:[a-z0-9-]+\]").unwrap();
    let kinds: std::collections::BTreeSet<&str> = sent
        .iter()
        .flat_map(|s| marker.find_iter(s).map(|m| m.as_str()))
        .collect();
    // 18 kinds with the 13 vendored transcripts alone, 30 or more with the
    // shared corpus.
    assert!(
        kinds.len() >= 15,
        "only {} kinds of marker: {kinds:?}",
        kinds.len()
    );
    assert!(
        sent.iter().any(|s| s.contains("[REDACTED:")),
        "the planted secrets never reached the prompt"
    );
    let mut leaks = Vec::new();
    for secret in &secrets {
        for (i, prompt) in sent.iter().enumerate() {
            if prompt.contains(secret.as_str()) {
                leaks.push(format!("LLM stdin #{i}: {secret}"));
            }
        }
        for (file, bytes) in all_bytes(&p.thehook()) {
            if contains(&bytes, secret) {
                leaks.push(format!("{}: {secret}", file.display()));
            }
        }
    }
    assert!(leaks.is_empty(), "secrets leaked:\n{}", leaks.join("\n"));

    // The control: with redaction off, the same planting does reach the LLM.
    let q = project("good", 0);
    configure(&q, "good", 0, false);
    let (code, _, err) = run(
        &q,
        &["capture", "--transcript", planted[1].to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    let prompt = &prompts(&q)[0];
    assert!(
        secrets.iter().any(|s| prompt.contains(s.as_str())),
        "planting never reached the LLM"
    );
}

/// A worker killed at any moment leaves no partial markdown, and the job
/// stays queued until a session file is complete.
#[test]
fn a_worker_killed_at_any_point_loses_nothing() {
    let p = project("good", 0);
    let t = transcript("claude-code/d-kimuson-1af7fc5e.jsonl");
    for delay_ms in [0u64, 10, 30, 60, 100, 150, 250, 400, 700] {
        queue(&p, "killed", &t);
        let mut child = std_cmd(&p, &["capture", "--worker"]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        for f in session_files(&p) {
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                text.starts_with("---\n") && text.contains("## Session Summary"),
                "partial file after {delay_ms} ms"
            );
        }
        let queued = !files_in(&p, "queue").is_empty();
        let written = !session_files(&p).is_empty();
        assert!(
            queued || written,
            "after {delay_ms} ms the session is neither queued nor written"
        );
    }
    // Killed while the LLM runs: the job waits, and the LLM died with it.
    let h = project("hang", 0);
    h.write(
        ".thehook/config.yaml",
        format!(
            "llm:\n  cli: command\n  command: [{:?}]\n  timeout_secs: 60\n",
            fake("hang")
        ),
    );
    queue(&h, "mid-llm", &t);
    let mut child = std_cmd(&h, &["capture", "--worker"]).spawn().unwrap();
    wait_for("the LLM to start", Duration::from_secs(30), || {
        !prompts(&h).is_empty()
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(files_in(&h, "queue"), ["mid-llm.json"]);
    assert!(session_files(&h).is_empty());
    wait_for(
        "the LLM to die with the worker",
        Duration::from_secs(5),
        || processes_in(h.root()).is_empty(),
    );

    // The next worker finishes: one file for the session, nothing queued.
    cmd(&p, &["capture", "--worker"]).assert().success();
    assert_eq!(session_files(&p).len(), 1);
    assert!(files_in(&p, "queue").is_empty());
    let hits = p.recall_json("source of truth", &[]);
    assert_eq!(
        hit_texts(&hits)
            .iter()
            .filter(|t| t.contains("source of truth"))
            .count(),
        1
    );
}

/// A convention in knowledge/ and two sessions queued to consolidate into it.
fn two_sessions_over_a_convention(p: &Project) {
    p.write(
        ".thehook/knowledge/conventions.md",
        "# Conventions\n\n- `[convention]` Commit messages use the imperative mood\n",
    );
    queue(p, "c-1", &transcript("claude-code/marot-short.jsonl"));
    queue(p, "c-2", &transcript("claude-code/entireio-1b3e6441.jsonl"));
}

#[test]
fn every_n_sessions_are_consolidated_and_a_dropping_answer_is_refused() {
    let p = project("good", 2);
    two_sessions_over_a_convention(&p);
    cmd(&p, &["capture", "--worker"]).assert().success();
    let conventions = p.read(".thehook/knowledge/conventions.md");
    assert!(
        conventions.contains("Commit messages use the imperative mood"),
        "{conventions}"
    );
    assert!(
        conventions.contains("Source files live under `src/`"),
        "{conventions}"
    );
    assert_eq!(
        conventions.matches("Source files live under").count(),
        1,
        "duplicates merged"
    );
    assert!(p
        .read(".thehook/knowledge/architecture.md")
        .contains("source of truth"));
    assert!(p
        .read(".thehook/knowledge/history.md")
        .contains("Worked on:"));
    let ledger = p.read(".thehook/consolidated.txt");
    for f in session_files(&p) {
        let meta = front_matter(&std::fs::read_to_string(f).unwrap());
        assert_eq!(meta.consolidated, None, "session files are never edited");
        let id = meta.session_id.unwrap();
        assert!(ledger.lines().any(|l| l == id), "{id} not in {ledger}");
    }
    assert!(!p.root().join(".thehook/queue/.consolidate").exists());

    // A third session, then an LLM that would drop what knowledge holds.
    queue(
        &p,
        "c-3",
        &transcript("claude-code/drmaciver-stop-hook.jsonl"),
    );
    cmd(&p, &["capture", "--worker"]).assert().success();
    configure(&p, "dropper", 2, true);
    let before = p.markdown_snapshot();
    let (code, _, err) = run(&p, &["consolidate"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("consolidation refused: the answer would drop"),
        "{err}"
    );
    assert!(err.contains("imperative mood"), "{err}");
    assert_eq!(
        p.markdown_snapshot(),
        before,
        "a refused consolidation changed files"
    );
    assert!(p
        .read(".thehook/logs/worker.log")
        .contains("consolidation refused"));

    // A hanging LLM changes nothing either.
    configure(&p, "hang", 2, true);
    let (code, _, err) = run(&p, &["consolidate"]);
    assert_eq!(code, 2);
    assert!(err.contains("no answer within 1 s"), "{err}");
    assert_eq!(p.markdown_snapshot(), before);
    // Killed while the LLM works: nothing changed, nothing staged.
    p.write(
        ".thehook/config.yaml",
        format!(
            "llm:\n  cli: command\n  command: [{:?}]\n  timeout_secs: 60\n",
            fake("hang")
        ),
    );
    let asked = prompts(&p).len();
    let mut child = std_cmd(&p, &["consolidate"]).spawn().unwrap();
    wait_for("the consolidation prompt", Duration::from_secs(30), || {
        prompts(&p).len() > asked
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(p.markdown_snapshot(), before);
    assert!(!p
        .root()
        .join(".thehook/queue/.consolidate/manifest.json")
        .exists());

    // A good one takes the third session in.
    configure(&p, "good", 2, true);
    let out = p.ok(&["consolidate"]);
    assert!(out.contains("consolidated 1 session(s)"), "{out}");
    assert!(p
        .read(".thehook/knowledge/conventions.md")
        .contains("imperative mood"));
}

/// Consolidation killed (SIGKILL) at any moment: the knowledge files are
/// each whole, old or new, never half-written, the session files are never
/// touched, and the next run finishes it with every session merged once.
#[test]
fn a_consolidation_killed_at_any_point_loses_nothing() {
    let p = project("good", 0);
    two_sessions_over_a_convention(&p);
    cmd(&p, &["capture", "--worker"]).assert().success();
    let sessions: Vec<(PathBuf, Vec<u8>)> = session_files(&p)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap();
            (f, bytes)
        })
        .collect();
    assert_eq!(sessions.len(), 2);
    for delay_ms in [0u64, 5, 20, 50, 100, 200, 400] {
        let mut child = std_cmd(&p, &["consolidate"]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let conventions = p.read(".thehook/knowledge/conventions.md");
        assert!(
            conventions.starts_with("# Conventions\n")
                && conventions.contains("Commit messages use the imperative mood"),
            "after {delay_ms} ms: {conventions}"
        );
        for (f, bytes) in &sessions {
            assert_eq!(&std::fs::read(f).unwrap(), bytes, "{}", f.display());
        }
    }
    cmd(&p, &["consolidate"]).assert().success();
    let conventions = p.read(".thehook/knowledge/conventions.md");
    assert_eq!(
        conventions.matches("Source files live under").count(),
        1,
        "{conventions}"
    );
    assert!(conventions.contains("Commit messages use the imperative mood"));
    let ledger = p.read(".thehook/consolidated.txt");
    for (f, _) in &sessions {
        let id = front_matter(&std::fs::read_to_string(f).unwrap())
            .session_id
            .unwrap();
        assert_eq!(ledger.lines().filter(|l| *l == id).count(), 1, "{ledger}");
    }
    assert!(!p.root().join(".thehook/queue/.consolidate").exists());
}

/// A real Claude Code session (it writes `CLAUDE.md`) given the notes'
/// lines 3 and 4 at its start, captured; its id.
fn give_notes_then_capture(p: &Project) -> &'static str {
    let id = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
    // What the session-start hook recorded, a minute before the session
    // wrote the file (the hook records the time it gave a line).
    p.write(
        &format!(".thehook/index/given/{id}.txt"),
        "2025-09-03T00:47:00Z\tstart\t.thehook/knowledge/notes.md:3\n\
         2025-09-03T00:47:00Z\tstart\t.thehook/knowledge/notes.md:4\n",
    );
    let t = transcript("claude-code/d-kimuson-1af7fc5e.jsonl");
    p.ok(&["capture", "--transcript", t.to_str().unwrap()]);
    id
}

/// A real Claude Code session (it writes `CLAUDE.md`), given two lines at
/// its start: the one that names `CLAUDE.md` is marked used, with the
/// call that used it; the other is not; `status` and `sessions --json`
/// count them, and the bill names the session its LLM call was for.
#[test]
fn capture_marks_which_lines_given_the_session_used() {
    let p = project("good", 0);
    p.write(
        ".thehook/knowledge/notes.md",
        "# Notes\n\n- Keep `CLAUDE.md` short: the dev commands and the layout.\n- Retries live in src/net/retry.rs.\n",
    );
    let id = give_notes_then_capture(&p);
    let kept: Value =
        serde_json::from_str(&p.read(&format!(".thehook/index/used/{id}.json"))).unwrap();
    let lines = &kept["blocks"][0]["lines"];
    assert_eq!(kept["blocks"][0]["hook"], "start");
    assert_eq!(lines[0]["cited"], ".thehook/knowledge/notes.md:3");
    assert_eq!(lines[0]["used"]["how"], "edited");
    assert_eq!(lines[0]["used"]["tool"], "Write");
    assert_eq!(lines[0]["used"]["target"], "CLAUDE.md");
    assert!(lines[1]["used"].is_null(), "{kept}");
    let status: Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    let counts = &status["given_last_30_days"];
    assert_eq!(
        (counts["given"].as_u64(), counts["used"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(counts["start"]["used"], 1);
    assert!(p
        .ok(&["status"])
        .contains("1 of 2 lines used in the last 30 days"));
    let bill = std::fs::read_to_string(p.root().join(".thehook/logs/llm.log")).unwrap();
    assert!(bill.contains(&format!("\"session\":\"{id}\"")), "{bill}");
}

/// What agents used ranks first: two lines a search finds, given to a real
/// Claude Code session that then used one (it wrote `CLAUDE.md`). Before
/// the capture the other ranks first; after it, the used one does, and
/// `recall --json` says in how many sessions each was given and used.
#[test]
fn recall_ranks_a_line_agents_used_above_one_they_did_not() {
    let p = project("good", 0);
    p.write(
        ".thehook/knowledge/notes.md",
        "# Notes\n\n- Keep `CLAUDE.md` short: the dev commands and the layout.\n- Keep the layout short and the retry layout short: src/net/retry.rs.\n",
    );
    let order = |p: &Project| -> Vec<(String, Value)> {
        let out: Value =
            serde_json::from_str(&p.ok(&["recall", "short layout", "--mode", "lexical", "--json"]))
                .unwrap();
        out["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["citation"].as_str().unwrap().to_string(),
                    h["used"].clone(),
                )
            })
            .collect()
    };
    let before = order(&p);
    assert_eq!(before[0].0, ".thehook/knowledge/notes.md:4", "{before:?}");
    assert!(before.iter().all(|(_, used)| used.is_null()), "{before:?}");
    give_notes_then_capture(&p);
    let after = order(&p);
    assert_eq!(
        after[..2],
        [
            (
                ".thehook/knowledge/notes.md:3".to_string(),
                json!({"given": 1, "used": 1})
            ),
            (
                ".thehook/knowledge/notes.md:4".to_string(),
                json!({"given": 1, "used": 0})
            ),
        ],
        "{after:?}"
    );
}
