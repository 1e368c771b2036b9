//! Scenario builders for agents' transcript stores under the test HOME:
//! `p.claude_session("old-1").user("fix the login").ended(hours(1))`.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::Project;

/// A transcript being put together for an agent's store.
pub struct StoredSession<'p> {
    project: &'p Project,
    /// Relative to the project root.
    rel: String,
    records: Vec<Value>,
    make: fn(&StoredSession, &str) -> Value,
    id: String,
    cwd: PathBuf,
}

impl Project {
    /// A Claude Code session of this project, in the project's store folder.
    pub fn claude_session(&self, id: &str) -> StoredSession<'_> {
        StoredSession {
            project: self,
            rel: format!("{}/{id}.jsonl", self.claude_store()),
            records: Vec::new(),
            make: |s, text| {
                json!({"type": "user", "uuid": "u1", "sessionId": s.id, "cwd": s.cwd,
                       "message": {"role": "user", "content": text}})
            },
            id: id.to_string(),
            cwd: self.root().canonicalize().unwrap(),
        }
    }

    /// A Codex rollout of this project (`session_meta` first).
    pub fn codex_rollout(&self, id: &str) -> StoredSession<'_> {
        let cwd = self.root().canonicalize().unwrap();
        StoredSession {
            project: self,
            rel: format!("home/.codex/sessions/2026/11/22/rollout-2026-11-22T10-00-00-{id}.jsonl"),
            records: vec![
                json!({"timestamp": "2026-11-22T10:00:00Z", "type": "session_meta",
                                 "payload": {"id": id, "cwd": cwd, "cli_version": "0.47.0"}}),
            ],
            make: |_, text| {
                json!({"timestamp": "2026-11-22T10:00:01Z", "type": "response_item",
                       "payload": {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]}})
            },
            id: id.to_string(),
            cwd,
        }
    }
}

impl StoredSession<'_> {
    /// Puts it in another project's store folder whose name extends this
    /// project's (`<slug>-other`), run from `cwd`.
    pub fn elsewhere(mut self, folder_suffix: &str, cwd: &str) -> Self {
        self.rel = self
            .rel
            .replacen(".jsonl", "", 1)
            .rsplit_once('/')
            .map(|(dir, file)| format!("{dir}-{folder_suffix}/{file}.jsonl"))
            .unwrap();
        self.cwd = PathBuf::from(cwd);
        self
    }

    /// A user message.
    pub fn user(mut self, text: &str) -> Self {
        let record = (self.make)(&self, text);
        self.records.push(record);
        self
    }

    /// Writes it, last changed `ago` (a session that ended then).
    pub fn ended(self, ago: Duration) -> PathBuf {
        let path = self.write();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::now() - ago).unwrap();
        path
    }

    /// Writes it, changed just now (a live session).
    pub fn live(self) -> PathBuf {
        self.write()
    }

    fn write(&self) -> PathBuf {
        let lines: Vec<String> = self.records.iter().map(Value::to_string).collect();
        self.project.write(&self.rel, lines.join("\n") + "\n");
        self.project.root().join(&self.rel)
    }
}

pub fn hours(n: u64) -> Duration {
    Duration::from_secs(n * 3600)
}

/// Waits (up to a minute) until `file` under the project contains `text`.
pub fn wait_for(project: &Project, file: &str, text: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(project.root().join(file)).is_ok_and(|t| t.contains(text)) {
        assert!(
            std::time::Instant::now() < deadline,
            "{file} never said {text:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
