//! What the real agents showed, held in place without them: Gemini CLI's
//! chat log is listed, read and swept; Codex's hook trust and the agents'
//! project trust are checked by doctor. (`tests/agents/` runs the real CLIs.)

use std::time::{Duration, SystemTime};

use crate::common::{hours, repo_root, Project};

/// A chat log written by Gemini CLI 0.61.0, placed in the test HOME's store
/// as Gemini places it, for the project; last changed `ago`.
fn gemini_chat(p: &Project, ago: Duration) -> String {
    let log = std::fs::read_to_string(
        repo_root()
            .join("crates/thehook-core/tests/fixtures/transcripts/gemini/headless-0.61.0.jsonl"),
    )
    .unwrap();
    let dir = "home/.gemini/tmp/project/chats";
    let file = format!("{dir}/session-2026-11-23T17-30-a5b55abd.jsonl");
    p.write(&file, log);
    p.write(
        "home/.gemini/tmp/project/.project_root",
        p.root().to_string_lossy().as_bytes(),
    );
    let f = std::fs::File::options()
        .write(true)
        .open(p.root().join(&file))
        .unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
    "a5b55abd".to_string()
}

#[test]
fn a_gemini_chat_log_is_listed_read_and_swept() {
    let p = Project::empty().lexical_only();
    p.ok(&["remember", "Deploys go through the blue-green script"]);
    let config = p.thehook().join("config.yaml");
    std::fs::write(&config, "capture:\n  enabled: true\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&config)
        .unwrap()
        .set_modified(SystemTime::now() - hours(3))
        .unwrap();
    let id = gemini_chat(&p, hours(1));

    let listed = p.ok(&["sessions"]);
    assert!(
        listed.contains(&id) && listed.contains("say hi"),
        "{listed}"
    );
    let read = p.ok(&["read", &id]);
    assert!(read.contains("say hi"), "{read}");
    assert!(
        !read.contains("THEHOOK_MARKER"),
        "injected memory is not the user's: {read}"
    );

    // Ended an hour ago and never captured: the sweep queues it, and the
    // same background half captures it (no LLM here: from the transcript).
    p.ok(&["retrieve", "--agent", "gemini", "--background"]);
    let log = p.read(".thehook/logs/hooks.log");
    assert!(log.contains("queued 1 uncaptured session(s)"), "{log}");
    let sessions: Vec<_> = std::fs::read_dir(p.thehook().join("sessions"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        sessions
            .iter()
            .any(|s| s.contains("agent: gemini") && s.contains("say hi")),
        "{sessions:?}"
    );
}

/// Doctor's report (it exits non-zero while a check warns).
fn doctor_report(p: &Project) -> String {
    p.run(&["doctor"]).1
}

#[test]
fn doctor_names_codex_hooks_it_would_skip_and_init_trusts_them_again() {
    let p = Project::empty().lexical_only();
    let bin = assert_cmd::cargo::cargo_bin("thehook");
    let init = [
        "init",
        "--agent",
        "codex,gemini",
        "--bin",
        bin.to_str().unwrap(),
    ];
    p.ok(&init);
    let doctor = doctor_report(&p);
    assert!(
        doctor.contains("codex does not trust this project"),
        "{doctor}"
    );
    assert!(
        doctor.contains("gemini does not trust this project"),
        "{doctor}"
    );
    assert!(
        !doctor.contains("has not trusted"),
        "init trusted its hooks: {doctor}"
    );

    // The user trusts the project in both; someone edits a hash.
    let root = p.root().to_string_lossy().into_owned();
    let codex = p.read("home/.codex/config.toml");
    let edited = codex.replacen("sha256:", "sha256:0", 1);
    p.write(
        "home/.codex/config.toml",
        format!("{edited}\n[projects.\"{root}\"]\ntrust_level = \"trusted\"\n"),
    );
    p.write(
        "home/.gemini/trustedFolders.json",
        format!("{{\"{root}\": \"TRUST_FOLDER\"}}"),
    );
    let doctor = doctor_report(&p);
    assert!(doctor.contains("codex trusts this project"), "{doctor}");
    assert!(doctor.contains("gemini trusts this project"), "{doctor}");
    assert!(doctor.contains(":session_start:0:0 (modified)"), "{doctor}");
    assert!(
        doctor.contains("thehook init --agent codex"),
        "the fix: {doctor}"
    );

    // Running init again trusts the hook as it is; nothing else changes.
    p.ok(&init);
    assert!(!doctor_report(&p).contains("has not trusted"));
    assert!(p
        .read("home/.codex/config.toml")
        .contains("trust_level = \"trusted\""));
}

#[test]
fn init_and_uninstall_json_is_the_cores_summary() {
    let p = Project::empty().lexical_only();
    let bin = assert_cmd::cargo::cargo_bin("thehook");
    let bin = bin.to_str().unwrap();
    let init: serde_json::Value =
        serde_json::from_str(&p.ok(&["init", "--agent", "claude", "--bin", bin, "--json"]))
            .unwrap();
    let keys = crate::common::keys(&init);
    assert_eq!(keys, ["changes", "hook_command", "warning"]);
    assert_eq!(init["hook_command"], bin);
    let settings = init["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"].as_str().unwrap().ends_with("settings.json"))
        .expect("claude's settings");
    assert_eq!(settings["action"], "created", "{init}");
    let gone: serde_json::Value = serde_json::from_str(&p.ok(&["uninstall", "--json"])).unwrap();
    assert_eq!(gone["hook_command"], serde_json::Value::Null, "{gone}");
    assert!(
        gone["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["action"] == "removed"),
        "{gone}"
    );
}
