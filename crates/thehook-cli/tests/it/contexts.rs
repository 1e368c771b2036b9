//! Memory in every context an agent builds, through the binary: a
//! subagent's start (with the task its parent handed it), a compaction or
//! `/clear` (the session is given memory again), a file named with `@`
//! (which the agent reads without a tool call).

use serde_json::{json, Value};

use crate::common::{git, Project};

const SESSION: &str = "9a1c55e0-0d3b-4a55-8a0e-4f3e2b1c7d11";

/// A repository whose memory holds a convention, a gotcha on the token
/// refresh, one on `src/parser.rs`, and a session that changed the parser.
fn repository() -> Project {
    let p = Project::empty();
    let root = p.root();
    git(root, &["init", "-q", "-b", "main"]);
    p.write("src/parser.rs", "pub fn parse() {}\n");
    p.write("src/auth.rs", "pub fn refresh() {}\n");
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "start"]);
    p.write(
        ".thehook/knowledge/conventions.md",
        "# Conventions\n\n- Deploys go through scripts/blue-green.sh, never kubectl apply\n",
    );
    p.write(
        ".thehook/knowledge/gotchas.md",
        "# Gotchas\n\n\
         - The token refresh retries three times with jittered backoff before it logs the user out\n\
         - `src/parser.rs` drops a list nested in a quote: test with tests/nested.md\n",
    );
    p.ok(&["status"]);
    p
}

/// The `additionalContext` of a hook's answer (empty when it said nothing).
fn context(answer: &str) -> String {
    if answer.is_empty() {
        return String::new();
    }
    let v: Value = serde_json::from_str(answer).unwrap_or_else(|_| panic!("not JSON: {answer}"));
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no context: {answer}"))
        .to_string()
}

fn started(p: &Project, source: &str) -> String {
    let payload = json!({
        "session_id": SESSION, "cwd": p.root(),
        "hook_event_name": "SessionStart", "source": source,
    });
    context(&p.hook_answer("retrieve", &payload))
}

/// Claude Code's `Agent` tool call handing a subagent of `agent_type` its task.
fn hand(p: &Project, agent_type: &str, task: &str) {
    let payload = json!({
        "session_id": SESSION, "cwd": p.root(), "hook_event_name": "PreToolUse",
        "tool_name": "Agent",
        "tool_input": {"description": "look", "prompt": task, "subagent_type": agent_type},
    });
    assert_eq!(
        p.hook_answer("subagent", &payload),
        "",
        "the call itself is told nothing"
    );
}

/// What a subagent `id` of `agent_type` is given when it starts.
fn subagent_started(p: &Project, id: &str, agent_type: &str) -> String {
    let payload = json!({
        "session_id": SESSION, "cwd": p.root(), "hook_event_name": "SubagentStart",
        "agent_id": id, "agent_type": agent_type,
    });
    let answer = p.hook_answer("subagent", &payload);
    if !answer.is_empty() {
        let v: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SubagentStart");
    }
    context(&answer)
}

const TOKEN_GOTCHA: &str = "The token refresh retries three times";
const CONVENTION: &str = "Deploys go through scripts/blue-green.sh";

#[test]
fn a_subagent_is_given_memory_on_the_task_its_parent_handed_it_once() {
    let p = repository();
    // The main thread was given the start block: its subagents were not.
    assert!(started(&p, "startup").contains(CONVENTION));
    let task = "Find why the token refresh logs users out";
    hand(&p, "general-purpose", task);
    hand(
        &p,
        "Explore",
        "List every caller of parse in the repository",
    );
    let first = subagent_started(&p, "a1", "general-purpose");
    // Its task's memory (`task`, the default), not the session start's.
    assert!(
        first.starts_with("# Project memory (thehook) on this task\n"),
        "{first}"
    );
    assert_eq!(
        first.matches(TOKEN_GOTCHA).count(),
        1,
        "given once: {first}"
    );
    assert!(!first.contains(CONVENTION), "{first}");
    // The Explore subagent took the task handed to its type, not the other's.
    let explore = subagent_started(&p, "a2", "Explore");
    assert!(!explore.contains(TOKEN_GOTCHA), "{explore}");
    let log = p.hook_log();
    assert!(
        log.contains("a subagent of type general-purpose (its task, task): 1 items, 1 on its task"),
        "{log}"
    );
    assert!(
        log.contains("a subagent of type Explore (its task)"),
        "{log}"
    );
    // Its own file hook does not repeat what it was given; a sibling on the
    // same task is not given the same lines again.
    let read = json!({"agent_id": "a1", "agent_type": "general-purpose"});
    let at_file = context(&p.touched(SESSION, "Read", "src/parser.rs", read));
    assert!(
        at_file.contains("drops a list nested in a quote"),
        "{at_file}"
    );
    hand(&p, "general-purpose", task);
    assert_eq!(subagent_started(&p, "a3", "general-purpose"), "");
    // `full` for the type: then what a session start gives, after its task's.
    p.write(
        ".thehook/config.yaml",
        "retrieval:\n  subagents:\n    default: task\n    general-purpose: full\n",
    );
    hand(&p, "general-purpose", "Tidy up the wording of the README");
    let full = subagent_started(&p, "a4", "general-purpose");
    let start_at = full.find("# Project memory (thehook)\n").expect(&full);
    assert!(full[start_at..].contains(CONVENTION), "{full}");
    assert!(p.hook_log().contains("(its task, full)"));
    // `none`: nothing.
    p.write(
        ".thehook/config.yaml",
        "retrieval:\n  subagents:\n    general-purpose: none\n",
    );
    hand(&p, "general-purpose", task);
    assert_eq!(subagent_started(&p, "a5", "general-purpose"), "");
    assert!(p.hook_log().contains("retrieval.subagents says none"));
}

#[test]
fn a_subagent_whose_start_says_no_task_is_given_the_latest_prompt_s_memory() {
    let p = repository();
    p.prompted(
        SESSION,
        "Why does the token refresh log users out so often?",
    );
    // Codex's SubagentStart: an id and a type, no task.
    let payload = json!({
        "session_id": SESSION, "turn_id": "t1",
        "transcript_path": p.home().join(".codex/sessions/2026/12/07/rollout-x.jsonl"),
        "cwd": p.root(), "hook_event_name": "SubagentStart", "model": "gpt-mock",
        "permission_mode": "default", "agent_id": "019b-child", "agent_type": "worker",
    });
    let answer = p
        .cmd(&["subagent", "--agent", "codex"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(answer.status.success());
    let given = context(&String::from_utf8_lossy(&answer.stdout));
    assert!(given.contains(TOKEN_GOTCHA), "{given}");
    assert!(
        p.hook_log().contains("(the session's latest prompt, task)"),
        "{}",
        p.hook_log()
    );
}

#[test]
fn after_a_compaction_the_session_is_given_memory_again_and_what_it_was_doing() {
    let p = repository();
    // Session start gives the conventions only: the gotchas come from the
    // prompt and file hooks.
    p.write(
        ".thehook/config.yaml",
        "retrieval:\n  include: [conventions]\n",
    );
    let first = started(&p, "startup");
    assert!(
        first.contains(CONVENTION) && !first.contains(TOKEN_GOTCHA),
        "{first}"
    );
    let prompt = "Why does the token refresh log users out?";
    assert!(context(&p.prompted(SESSION, prompt)).contains(TOKEN_GOTCHA));
    let read = context(&p.touched(SESSION, "Read", "src/parser.rs", json!({})));
    assert!(read.contains("drops a list nested in a quote"), "{read}");
    // Asked again before the compaction: nothing new.
    assert_eq!(context(&p.prompted(SESSION, prompt)), "");
    let after = started(&p, "compact");
    let so_far = after
        .split_once("## This session so far (before its context was compacted)\n")
        .unwrap_or_else(|| panic!("{after}"))
        .1;
    assert!(so_far.starts_with("- Branch: `main`\n"), "{so_far}");
    assert!(
        so_far.contains("- Files it worked on: `src/auth.rs`, `src/parser.rs`\n"),
        "{so_far}"
    );
    // The newest line the prompt and file hooks gave, with its text (one:
    // the rest comes back as the work does).
    assert!(
        so_far.contains(
            "\n- `src/parser.rs` drops a list nested in a quote: test with tests/nested.md, "
        ),
        "{so_far}"
    );
    assert!(!after.contains(TOKEN_GOTCHA), "{after}");
    // Given in this context again, so not repeated by the file hook, which
    // may speak of the file again (not "told already": the record started
    // over) but has nothing new on it.
    assert_eq!(
        context(&p.touched(SESSION, "Read", "src/parser.rs", json!({}))),
        ""
    );
    let log = p.hook_log();
    let last = log.lines().last().unwrap_or_default();
    assert!(
        last.contains("file: Read src/parser.rs: nothing new"),
        "{log}"
    );
    // What the section left out, the prompt hook gives again when the work
    // comes back to it, once; the session start's convention too.
    assert!(context(&p.prompted(SESSION, prompt)).contains(TOKEN_GOTCHA));
    assert_eq!(context(&p.prompted(SESSION, prompt)), "");
    assert!(!after.contains(CONVENTION), "{after}");
    let deploys = context(&p.prompted(SESSION, "How do deploys go out: blue-green.sh or kubectl?"));
    assert!(deploys.contains(CONVENTION), "{deploys}");
    // After /clear too, without what the cleared context was doing.
    let cleared = started(&p, "clear");
    assert!(
        cleared.contains(CONVENTION) && !cleared.contains("This session so far"),
        "{cleared}"
    );
    assert!(context(&p.prompted(SESSION, prompt)).contains(TOKEN_GOTCHA));
    // A resumed session still holds its context; a source left out of
    // `inject_on` gives nothing.
    assert_eq!(started(&p, "resume"), "");
    p.write(
        ".thehook/config.yaml",
        "retrieval:\n  inject_on: [startup]\n",
    );
    assert_eq!(started(&p, "compact"), "");
}

#[test]
fn a_file_named_with_at_brings_its_memory_once() {
    let p = repository();
    let said = context(&p.prompted(SESSION, "Tidy up @src/parser.rs please"));
    assert!(
        said.starts_with("# Project memory (thehook) on src/parser.rs\n"),
        "{said}"
    );
    assert!(said.contains("drops a list nested in a quote"), "{said}");
    // Named again, or read with a tool: told already.
    assert_eq!(
        context(&p.prompted(SESSION, "And @src/parser.rs again")),
        ""
    );
    assert_eq!(
        context(&p.touched(SESSION, "Read", "src/parser.rs", json!({}))),
        ""
    );
    // A file that does not exist, memory itself, outside the project: nothing.
    for named in [
        "@src/gone.rs",
        "@.thehook/knowledge/gotchas.md",
        "@/etc/hostname",
    ] {
        let said = context(&p.prompted("other", named));
        assert!(!said.contains("# Project memory (thehook) on"), "{said}");
    }
}
