//! Shared fixtures: temp projects and the real `thehook` binary, with the
//! real model (fetched by `scripts/fetch-assets.py` into `.assets/`) when
//! the `model` feature is on, lexical-only otherwise.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod git;
mod snapshot;
mod store;
pub use git::{git, git_in};
pub(crate) use snapshot::thehook_snapshot;
pub use store::{hours, wait_for};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Whether these tests run with the embedding model (the `model` feature).
pub const WITH_MODEL: bool = cfg!(feature = "model");

pub fn assets() -> PathBuf {
    let dir = repo_root().join(".assets");
    assert!(
        dir.join("model/model.onnx").is_file() && dir.join("onnxruntime").is_dir(),
        "the model is missing: run scripts/fetch-assets.py first (the README's setup command does)"
    );
    dir
}

pub fn ort_lib() -> PathBuf {
    let dir = assets().join("onnxruntime");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .contains("onnxruntime.")
        })
        .expect("ONNX Runtime library in .assets/onnxruntime")
}

/// A temp project with a `.thehook/` and the binary set up to find the model
/// through the environment (never through the user's cache).
pub struct Project {
    pub dir: tempfile::TempDir,
    pub with_model: bool,
}

impl Project {
    pub fn empty() -> Project {
        Project {
            dir: tempfile::tempdir().unwrap(),
            with_model: WITH_MODEL,
        }
    }

    /// A project holding a copy of `examples/demo/.thehook` (markdown only).
    pub fn demo() -> Project {
        let p = Project::empty();
        copy_markdown(&repo_root().join("examples/demo/.thehook"), &p.thehook());
        p
    }

    pub fn lexical_only(mut self) -> Project {
        self.with_model = false;
        self
    }

    /// The HOME the binary sees: empty unless something writes into it.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// Claude Code's transcript folder for this project under the test HOME,
    /// relative to the project root (for `write`): the path with every
    /// non-alphanumeric character replaced by `-`.
    pub fn claude_store(&self) -> String {
        let slug: String = self
            .root()
            .canonicalize()
            .unwrap()
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("home/.claude/projects/{slug}")
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `text` with this project's root, as given and as resolved, written
    /// `[project]`: output that names paths, fit for a snapshot.
    pub fn without_root(&self, text: &str) -> String {
        let canonical = self.root().canonicalize().unwrap();
        text.replace(&canonical.display().to_string(), "[project]")
            .replace(&self.root().display().to_string(), "[project]")
    }
    pub fn thehook(&self) -> PathBuf {
        self.root().join(".thehook")
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }

    /// `thehook -C <project> args...` with a clean, test-controlled environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        Command::from_std(self.std_cmd(args))
    }

    /// [`Project::cmd`] as a `std::process::Command`, for tests that spawn
    /// and signal the process.
    pub fn std_cmd(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("thehook"));
        cmd.arg("-C").arg(self.root()).args(args);
        for (var, _) in std::env::vars() {
            let agents_own = [
                "CODEX_HOME",
                "GEMINI_CLI_TRUST_WORKSPACE",
                "COPILOT_HOME",
                "COPILOT_ALLOW_ALL",
                "XDG_DATA_HOME",
            ];
            if var.starts_with("THEHOOK_")
                || var == "ORT_DYLIB_PATH"
                || var == "NO_COLOR"
                || agents_own.contains(&var.as_str())
            {
                cmd.env_remove(var);
            }
        }
        // Never find the developer's own cache, never write into their home.
        cmd.env("THEHOOK_CACHE_DIR", self.root().join("no-cache"));
        cmd.env("HOME", self.home());
        cmd.env_remove("XDG_CACHE_HOME");
        if self.with_model {
            cmd.env("THEHOOK_MODEL_DIR", assets().join("model"));
            cmd.env("ORT_DYLIB_PATH", ort_lib());
            // The model's optimised copy is made once for all tests, in the
            // repository's own asset folder, as the unit tests make it.
            cmd.env("THEHOOK_CACHE_DIR", assets());
            // Not the embedding cache, which would live there too: each test
            // embeds what it indexes, as on a machine that never did
            // (`the_embedding_cache_*` turns it on in a folder of its own).
            cmd.env("THEHOOK_EMBEDDING_CACHE", "off");
        } else {
            cmd.env("THEHOOK_MODEL_DIR", self.root().join("no-model"));
        }
        cmd
    }

    /// Runs and returns (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Runs `cmd` (a [`Project::cmd`] with more set), asserts exit 0,
    /// returns stdout.
    pub fn ok_with(cmd: &mut Command) -> String {
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs, asserts exit 0, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.run(args);
        assert_eq!(
            code, 0,
            "thehook {args:?} failed\nstdout: {out}\nstderr: {err}"
        );
        out
    }

    /// What the session-start hook injects for a Claude Code startup (its
    /// background half off).
    pub fn injected(&self) -> String {
        let payload = serde_json::json!({
            "session_id": "5e41ef2f-689e-4d7d-b917-06ebc40107bc",
            "cwd": self.root(),
            "hook_event_name": "SessionStart",
            "source": "startup",
        });
        let out = self.claude_hook("retrieve", &payload);
        let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// What the prompt hook adds for a Claude Code prompt in `session` (the
    /// whole JSON answer; empty when it adds nothing).
    pub fn prompted(&self, session: &str, prompt: &str) -> String {
        let payload = serde_json::json!({
            "session_id": session,
            "cwd": self.root(),
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        });
        self.claude_hook("prompt", &payload)
    }

    /// What the file hook adds when Claude Code's `tool` in `session` reads
    /// or edits `path` (relative to the project), with `extra` fields in the
    /// payload (the whole JSON answer; empty when it adds nothing).
    pub fn touched(
        &self,
        session: &str,
        tool: &str,
        path: &str,
        extra: serde_json::Value,
    ) -> String {
        let mut payload = serde_json::json!({
            "session_id": session,
            "transcript_path": self.root().join("t.jsonl"),
            "cwd": self.root(),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": {"file_path": self.root().join(path)},
            "tool_use_id": "toolu_01",
        });
        if let (Some(p), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        self.claude_hook("file", &payload)
    }

    /// What the hook `command` answers to Claude Code's `payload` (its
    /// stdout: empty when it adds nothing), its background half off.
    pub fn hook_answer(&self, command: &str, payload: &serde_json::Value) -> String {
        self.claude_hook(command, payload)
    }

    /// The hooks' log, for failure messages.
    pub fn hook_log(&self) -> String {
        std::fs::read_to_string(self.thehook().join("logs/hooks.log")).unwrap_or_default()
    }

    /// Runs the hook `command` as Claude Code does, `payload` on stdin and
    /// its background half off; asserts it exits 0 and returns its stdout.
    fn claude_hook(&self, command: &str, payload: &serde_json::Value) -> String {
        let out = self
            .cmd(&[command, "--agent", "claude-code"])
            .env("THEHOOK_BACKGROUND", "0")
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn recall_json(&self, query: &str, extra: &[&str]) -> serde_json::Value {
        let mut args = vec!["recall", query, "--json"];
        args.extend_from_slice(extra);
        let (_, out, err) = self.run(&args);
        serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("bad JSON ({e}): {out}\nstderr: {err}"))
    }

    /// Every markdown file under `.thehook/` with its bytes, for
    /// "nothing was modified" checks.
    pub fn markdown_snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files: Vec<_> = walk(&self.thehook())
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect();
        files.sort();
        files
    }
}

pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn copy_markdown(from: &Path, to: &Path) {
    for file in walk(from) {
        let rel = file.strip_prefix(from).unwrap();
        if rel.starts_with("index") {
            continue;
        }
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&file, dest).unwrap();
    }
}

/// The ids of a `recall --json` answer, in order.
pub fn hit_ids(answer: &serde_json::Value) -> Vec<String> {
    answer["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}

pub fn hit_texts(answer: &serde_json::Value) -> Vec<String> {
    answer["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap().to_string())
        .collect()
}

/// The keys of a JSON object, in the order printed (a format's fields).
pub fn keys(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_object()
        .expect("a JSON object")
        .keys()
        .map(String::as_str)
        .collect()
}
