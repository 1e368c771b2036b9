//! Finding sessions that ended without being captured. SessionEnd does not
//! always fire (crashes, closed terminals), and Codex has none, so each
//! session start looks through the agents' transcript stores for this
//! project's transcripts that are neither captured, queued nor failed, and
//! queues them for the capture worker.
//!
//! Only transcripts changed since thehook was set up in the project are
//! considered (capturing years of old sessions would be a surprise LLM
//! bill), and only once they have been quiet for [`QUIET`] (a transcript
//! still being written belongs to a live session).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::agents::Agent;
use crate::capture::queue::{enqueue, file_stem, pending_or_failed, Job, JOB_VERSION};
use crate::capture::transcript::{read_records, Record};
use crate::error::Result;
use crate::project::Project;

/// How long a transcript must be unchanged before its session counts as over.
pub const QUIET: Duration = Duration::from_secs(30 * 60);

/// A transcript found in an agent's store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub agent: Agent,
    pub path: PathBuf,
    pub session_id: String,
    pub cwd: Option<PathBuf>,
}

/// Queues this project's uncaptured transcripts; returns what it queued.
/// `current` is the session that is starting now (never queued).
pub fn sweep(
    project: &Project,
    home: &Path,
    current: Option<&str>,
    now: SystemTime,
) -> Result<Vec<Found>> {
    if !crate::capture::queue::capture_enabled(project)? {
        return Ok(Vec::new());
    }
    let since = setup_time(project);
    let captured = captured_sessions(project);
    let pending = pending_or_failed(project);
    let mut queued = Vec::new();
    for found in find_transcripts(project.root(), home, since, now) {
        let stem = file_stem(&found.session_id);
        if Some(found.session_id.as_str()) == current
            || captured.contains(&found.session_id)
            || pending.contains(&stem)
        {
            continue;
        }
        let job = Job {
            version: JOB_VERSION,
            session_id: found.session_id.clone(),
            agent: found.agent,
            transcript_path: Some(found.path.clone()),
            cwd: found.cwd.clone(),
            origin: "sweep".into(),
            queued_at: jiff::Timestamp::now().to_string(),
            reason: None,
        };
        enqueue(project, &job)?;
        queued.push(found);
    }
    Ok(queued)
}

/// When thehook was set up on this machine: recorded at the first sweep in
/// `.thehook/queue/.sweep-since` (machine-local, ignored by git) from the
/// config file's time (init writes it; a clone gets the clone's time, so
/// another machine's old sessions stay out). Recorded once, so editing the
/// config later does not hide sessions from before the edit.
fn setup_time(project: &Project) -> SystemTime {
    let state = project.queue_dir().join(".sweep-since");
    let recorded = std::fs::read_to_string(&state)
        .ok()
        .and_then(|t| t.trim().parse::<jiff::Timestamp>().ok());
    if let Some(t) = recorded {
        return SystemTime::from(t);
    }
    let since = std::fs::metadata(project.config_path())
        .or_else(|_| std::fs::metadata(project.dir()))
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::now());
    if let Ok(t) = jiff::Timestamp::try_from(since) {
        let _ = std::fs::create_dir_all(project.queue_dir());
        let _ = crate::memory::store::write_atomic(&state, t.to_string().as_bytes());
    }
    since
}

/// Session ids named in the front matter of session files.
fn captured_sessions(project: &Project) -> HashSet<String> {
    crate::memory::store::session_files(project)
        .into_iter()
        .filter_map(|f| f.front_matter.session_id)
        .collect()
}

/// Claude Code's folder name for a project: every non-alphanumeric
/// character of the path becomes `-`.
pub fn claude_slug(root: &Path) -> String {
    root.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Every transcript of this project, in any agent's store, changed between
/// `since` and `now - QUIET`.
pub fn find_transcripts(
    root: &Path,
    home: &Path,
    since: SystemTime,
    now: SystemTime,
) -> Vec<Found> {
    let in_window = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since && now.duration_since(t).is_ok_and(|age| age >= QUIET))
    };
    project_transcripts(root, home, &in_window)
}

/// Every transcript of the project at `root` in any agent's store under
/// `home`, among the files `keep` accepts (it is asked before a file is
/// opened). Subagents' own files are not listed: they belong to their
/// session.
pub fn project_transcripts(root: &Path, home: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<Found> {
    let belongs = |cwd: &Option<PathBuf>| cwd.as_ref().is_some_and(|c| c.starts_with(root));
    let mut found = Vec::new();
    let slug = claude_slug(root);

    // Claude Code: ~/.claude/projects/<slug>/<session>.jsonl; sessions
    // started in a subfolder have a longer slug. The records' cwd decides.
    for dir in subdirs(&home.join(".claude/projects")) {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name != slug && !name.starts_with(&format!("{slug}-")) {
            continue;
        }
        for path in crate::capture::transcript::jsonl_files(&dir)
            .into_iter()
            .filter(|p| keep(p))
        {
            let head = head_records(&path);
            let cwd = head
                .iter()
                .find_map(|r| r.value.get("cwd")?.as_str())
                .map(PathBuf::from);
            let id = head.iter().find_map(|r| r.value.get("sessionId")?.as_str());
            // A subagent's own file starts as a sidechain; a 1.0 session
            // starts as the main chain and has its subagents' turns inline.
            let is_sidechain = head
                .iter()
                .find_map(|r| r.value.get("isSidechain")?.as_bool())
                == Some(true);
            if let (Some(id), false, true) = (id, is_sidechain, belongs(&cwd)) {
                found.push(Found {
                    agent: Agent::ClaudeCode,
                    path: path.clone(),
                    session_id: id.to_string(),
                    cwd,
                });
            }
        }
    }

    // Cursor: ~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl; the
    // records carry no cwd, so the folder name decides.
    for dir in subdirs(&home.join(".cursor/projects")) {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name != slug && name != slug.trim_start_matches('-') {
            continue;
        }
        for path in crate::capture::transcript::jsonl_files(&dir.join("agent-transcripts"))
            .into_iter()
            .filter(|p| keep(p))
        {
            let id = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            found.push(Found {
                agent: Agent::Cursor,
                path,
                session_id: id,
                cwd: Some(root.to_path_buf()),
            });
        }
    }

    // Codex: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, all projects
    // together; the session_meta line names the cwd.
    let codex = home.join(".codex/sessions");
    for entry in walkdir::WalkDir::new(&codex).into_iter().flatten() {
        let path = entry.path();
        let is_rollout = entry.file_type().is_file()
            && path.extension().is_some_and(|x| x == "jsonl")
            && path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"));
        if !is_rollout || !keep(path) {
            continue;
        }
        let head = head_records(path);
        let meta = head.iter().find_map(|r| {
            (r.value.get("type")?.as_str()? == "session_meta")
                .then(|| r.value.get("payload"))
                .flatten()
        });
        let Some(meta) = meta else { continue };
        let cwd = meta.get("cwd").and_then(|v| v.as_str()).map(PathBuf::from);
        let id = meta
            .get("id")
            .or_else(|| meta.get("session_id"))
            .and_then(|v| v.as_str());
        if let (Some(id), true) = (id, belongs(&cwd)) {
            found.push(Found {
                agent: Agent::Codex,
                path: path.to_path_buf(),
                session_id: id.to_string(),
                cwd,
            });
        }
    }
    found
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect()
}

/// The first records of a transcript (its first MB: a first line can hold a
/// pasted screenshot), cheaply.
fn head_records(path: &Path) -> Vec<Record> {
    use std::io::Read;
    const HEAD: usize = 1 << 20;
    let mut buf = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(HEAD as u64).read_to_end(&mut buf);
    }
    // Drop a line cut by the limit.
    if buf.len() == HEAD {
        if let Some(end) = buf.iter().rposition(|b| *b == b'\n') {
            buf.truncate(end);
        }
    }
    read_records(&buf).0
}
