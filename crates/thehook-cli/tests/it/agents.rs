//! What the real agents showed, held in place without them: Gemini CLI's
//! chat log, Copilot CLI's session events and the sessions thehook's
//! opencode plugin keeps are listed, read and swept;
//! Codex's hook trust and the agents' project trust are checked by doctor.
//! (`tests/agents/` runs the real CLIs.)

use std::time::{Duration, SystemTime};

use crate::common::{hours, repo_root, Project};

/// The text of every session file captured in the project.
fn session_files(p: &Project) -> Vec<String> {
    std::fs::read_dir(p.thehook().join("sessions"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect()
}

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
    let sessions = session_files(&p);
    assert!(
        sessions
            .iter()
            .any(|s| s.contains("agent: gemini") && s.contains("say hi")),
        "{sessions:?}"
    );
}

/// A session Copilot CLI 1.0.102 wrote (`copilot -p "say hi"`), placed in the
/// test HOME's `~/.copilot/session-state/<id>/` with the `workspace.yaml`
/// that says where it ran; last changed `ago`.
fn copilot_session(p: &Project, ago: Duration) -> String {
    let id = "997d4eb4-1695-46fb-82a1-58a79f18280b";
    let events = std::fs::read_to_string(
        repo_root()
            .join("crates/thehook-core/tests/fixtures/transcripts/copilot/headless-1.0.102.jsonl"),
    )
    .unwrap();
    let dir = format!("home/.copilot/session-state/{id}");
    p.write(&format!("{dir}/events.jsonl"), events);
    p.write(
        &format!("{dir}/workspace.yaml"),
        format!("id: {id}\ncwd: {}\nbranch: main\n", p.root().display()),
    );
    std::fs::File::options()
        .write(true)
        .open(p.root().join(format!("{dir}/events.jsonl")))
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
    id[..8].to_string()
}

#[test]
fn a_copilot_session_is_listed_read_swept_and_captured_at_its_end() {
    let p = Project::empty().lexical_only();
    p.ok(&["remember", "Deploys go through the blue-green script"]);
    let id = copilot_session(&p, hours(1));
    // Another project's session in the same store is not this one's.
    p.write(
        "home/.copilot/session-state/0000aaaa-other/workspace.yaml",
        "id: 0000aaaa-other\ncwd: /elsewhere\n",
    );
    p.write(
        "home/.copilot/session-state/0000aaaa-other/events.jsonl",
        p.read("home/.copilot/session-state/997d4eb4-1695-46fb-82a1-58a79f18280b/events.jsonl"),
    );

    let listed = p.ok(&["sessions", "--agent", "copilot"]);
    assert!(
        listed.contains(&id) && listed.contains("say hi"),
        "{listed}"
    );
    assert_eq!(
        listed.lines().filter(|l| l.contains("say hi")).count(),
        1,
        "{listed}"
    );
    let read = p.ok(&["read", &id]);
    assert!(
        read.contains("say hi") && read.contains("MOCK_REPLY_OK"),
        "{read}"
    );
    assert!(
        !read.contains("THEHOOK_MARKER"),
        "injected memory is not the user's: {read}"
    );

    // Session end names no transcript: the session id finds it in the store.
    let end = serde_json::json!({
        "sessionId": "997d4eb4-1695-46fb-82a1-58a79f18280b", "timestamp": 1795651152726u64,
        "cwd": p.root(), "reason": "complete"
    });
    let out = p
        .cmd(&["capture", "--agent", "copilot"])
        .env("THEHOOK_BACKGROUND", "0")
        .write_stdin(end.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    // Copilot writes the session's events after its sessionEnd hooks ran.
    copilot_session(&p, Duration::ZERO);
    p.ok(&["capture", "--worker"]);
    let worker = p.read(".thehook/logs/worker.log");
    assert!(worker.contains("997d4eb4"), "{worker}");
    let sessions = session_files(&p);
    assert!(
        sessions
            .iter()
            .any(|s| s.contains("agent: copilot") && s.contains("say hi")),
        "{worker}\n{sessions:?}"
    );
}

#[test]
fn copilot_hooks_are_wired_trusted_by_doctor_and_given_back_byte_for_byte() {
    let p = Project::empty().lexical_only();
    let bin = assert_cmd::cargo::cargo_bin("thehook");
    // A hooks file of the user's own beside thehook's, which stays as it is.
    let theirs = "{\"version\": 1, \"hooks\": {\"sessionEnd\": [{\"type\": \"command\", \"bash\": \"./notify.sh\"}]}}\n";
    p.write(".github/hooks/notify.json", theirs);
    let init = p.ok(&["init", "--agent", "copilot", "--bin", bin.to_str().unwrap()]);
    assert!(init.contains(".github/hooks/thehook.json"), "{init}");
    assert!(
        init.contains("trustedFolders"),
        "init says how to trust: {init}"
    );
    let hooks: serde_json::Value =
        serde_json::from_str(&p.read(".github/hooks/thehook.json")).unwrap();
    assert_eq!(hooks["version"], 1);
    let start = &hooks["hooks"]["sessionStart"][0];
    assert!(
        start["bash"]
            .as_str()
            .unwrap()
            .ends_with(" retrieve --agent copilot"),
        "{start}"
    );
    assert!(
        start["powershell"]
            .as_str()
            .unwrap()
            .ends_with(" retrieve --agent copilot"),
        "{start}"
    );
    assert!(hooks["hooks"]["sessionEnd"][0]["bash"]
        .as_str()
        .unwrap()
        .contains(" capture "));
    assert!(hooks["hooks"]["userPromptSubmitted"][0]["bash"]
        .as_str()
        .unwrap()
        .contains(" prompt "));
    assert!(doctor_report(&p).contains("copilot does not trust this project"));

    let root = p.root().to_string_lossy().into_owned();
    p.write(
        "home/.copilot/config.json",
        format!(
            "{{\"trustedFolders\": [{}]}}",
            serde_json::Value::from(root)
        ),
    );
    let doctor = doctor_report(&p);
    assert!(doctor.contains("copilot trusts this project"), "{doctor}");
    // Whether its program is on PATH is said for each agent wired.
    assert!(doctor.contains("Copilot CLI: "), "{doctor}");
    assert!(
        doctor.contains("copilot: wired in .github/hooks/thehook.json"),
        "{doctor}"
    );

    p.ok(&["uninstall"]);
    assert!(!p.root().join(".github/hooks/thehook.json").exists());
    assert_eq!(p.read(".github/hooks/notify.json"), theirs);

    // With --global: ~/.copilot/hooks/, which needs no trust.
    p.ok(&[
        "init",
        "--global",
        "--agent",
        "copilot",
        "--bin",
        bin.to_str().unwrap(),
    ]);
    assert!(p
        .read("home/.copilot/hooks/thehook.json")
        .contains("retrieve --agent copilot"));
    p.ok(&["uninstall", "--global"]);
    assert!(!p.root().join("home/.copilot/hooks").exists());
    assert!(p.root().join("home/.copilot/config.json").exists());
}

/// A session opencode 1.18.33 ran, as thehook's plugin keeps it in
/// `~/.local/share/thehook/opencode/` (its folder made this project's);
/// last changed `ago`.
fn opencode_session(p: &Project, ago: Duration) -> std::path::PathBuf {
    let export = std::fs::read_to_string(
        repo_root()
            .join("crates/thehook-core/tests/fixtures/transcripts/opencode/tool-call-1.18.33.json"),
    )
    .unwrap();
    let root = serde_json::Value::from(p.root().to_string_lossy()).to_string();
    let export = export.replace("\"/home/user/research/proj-opencode\"", &root);
    let file = "home/.local/share/thehook/opencode/ses_dea703ca4ffeSLFX28P4KoU339.json";
    p.write(file, export);
    let path = p.root().join(file);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
    path
}

#[test]
fn an_opencode_session_the_plugin_kept_is_listed_read_and_swept() {
    let p = Project::empty().lexical_only();
    p.ok(&["remember", "Deploys go through the blue-green script"]);
    // thehook was set up 3 hours ago: the sweep looks back that far.
    p.write(".thehook/config.yaml", "capture:\n  enabled: true\n");
    std::fs::File::options()
        .write(true)
        .open(p.thehook().join("config.yaml"))
        .unwrap()
        .set_modified(SystemTime::now() - hours(3))
        .unwrap();
    opencode_session(&p, hours(1));
    // Another project's session in the same folder is not this one's.
    p.write(
        "home/.local/share/thehook/opencode/ses_other.json",
        r#"{"info": {"id": "ses_other", "directory": "/elsewhere"}, "messages": []}"#,
    );
    let listed = p.ok(&["sessions", "--agent", "opencode"]);
    // Ids cut to the shortest prefix that tells the listed ones apart.
    assert!(listed.starts_with("ses_dea7 "), "{listed}");
    assert!(!listed.contains("ses_other"), "{listed}");
    let read = p.ok(&["read", "ses_dea703ca"]);
    assert!(
        read.contains("echo hi-from-bash") && read.contains("MOCK-REPLY"),
        "{read}"
    );

    // The plugin never reached its exit (opencode was killed): the sweep
    // at the next session start queues it and captures it.
    p.ok(&["retrieve", "--agent", "opencode", "--background"]);
    let log = p.read(".thehook/logs/hooks.log");
    assert!(log.contains("queued 1 uncaptured session(s)"), "{log}");
    let sessions = session_files(&p);
    assert!(
        sessions
            .iter()
            .any(|s| s.contains("agent: opencode") && s.contains("USE-TOOL")),
        "{sessions:?}"
    );
}

#[test]
fn the_opencode_plugin_is_valid_js_wired_and_given_back_exactly() {
    let p = Project::empty().lexical_only();
    let bin = assert_cmd::cargo::cargo_bin("thehook");
    let bin = bin.to_str().unwrap();
    let theirs = "export default { id: \"mine\", server: async () => ({}) };\n";
    p.write(".opencode/plugins/mine.js", theirs);
    let init = p.ok(&["init", "--agent", "opencode", "--bin", bin]);
    assert!(init.contains(".opencode/plugins/thehook.js"), "{init}");
    let plugin = p.read(".opencode/plugins/thehook.js");
    assert!(
        plugin.contains(&format!(
            "const THEHOOK = {};",
            serde_json::Value::from(bin)
        )),
        "{plugin}"
    );
    assert!(plugin.contains("const ON_PROMPT = true;"));
    assert!(plugin.contains("const ON_FILE = true;"));
    assert!(plugin.contains("`thehook uninstall` removes it"));
    // opencode loads it as an ES module: it must at least parse.
    if let Ok(out) = std::process::Command::new("node")
        .arg("--check")
        .arg(p.root().join(".opencode/plugins/thehook.js"))
        .output()
    {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let doctor = doctor_report(&p);
    assert!(doctor.contains(".opencode/plugins/thehook.js"), "{doctor}");
    assert!(p
        .ok(&["init", "--agent", "opencode", "--bin", bin])
        .contains("unchanged"));

    // With the prompt and file hooks off, the plugin looks nothing up at
    // prompts or tool calls, and doctor agrees.
    p.write(
        ".thehook/config.yaml",
        "retrieval:\n  on_prompt: false\n  on_file: false\n",
    );
    p.ok(&["init", "--agent", "opencode", "--bin", bin]);
    let plugin = p.read(".opencode/plugins/thehook.js");
    assert!(plugin.contains("const ON_PROMPT = false;"));
    assert!(plugin.contains("const ON_FILE = false;"));
    let doctor = doctor_report(&p);
    assert!(!doctor.contains("again to take it out"), "{doctor}");

    p.ok(&["uninstall"]);
    assert!(!p.root().join(".opencode/plugins/thehook.js").exists());
    assert_eq!(p.read(".opencode/plugins/mine.js"), theirs);

    // A thehook.js of the user's own is never overwritten or removed.
    p.write(".opencode/plugins/thehook.js", theirs);
    let init = p.ok(&["init", "--agent", "opencode", "--bin", bin]);
    assert!(init.contains("of your own"), "{init}");
    p.ok(&["uninstall"]);
    assert_eq!(p.read(".opencode/plugins/thehook.js"), theirs);

    // With --global: ~/.config/opencode/plugins/.
    p.ok(&["init", "--global", "--agent", "opencode", "--bin", bin]);
    assert!(p
        .read("home/.config/opencode/plugins/thehook.js")
        .contains("const THEHOOK"));
    p.ok(&["uninstall", "--global"]);
    assert!(!p.root().join("home/.config/opencode").exists());
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
