//! The capture worker: drains `.thehook/queue/`, turns each session's
//! transcript into a session file, and never loses one.
//!
//! For each job: read the transcript, redact it, condense it, ask the LLM,
//! validate the answer, write `sessions/<date>-<slug>.md` atomically, index
//! it, then (and only then) remove the job. A worker killed at any point
//! leaves the job queued and at most a complete session file that the next
//! run rewrites in place. Without a usable answer the session file comes
//! from a deterministic extraction (`extracted: heuristic`) and the redacted
//! transcript waits in `failed/` with its reason for `capture --retry`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agents::Agent;
use crate::capture::extract::{self, Distilled, SessionMeta, UnusableAnswer};
use crate::capture::llm::LlmFailure;
use crate::capture::paths;
use crate::capture::queue::{file_stem, Job};
use crate::config::Config;
use crate::error::{Error, IndexFailure, IoContext, Result};
use crate::logs;
use crate::memory::embed::SearchPaths;
use crate::memory::store::{self, write_atomic};
use crate::memory::Memory;
use crate::project::Project;
use crate::text::redact::{self, Findings};
use crate::transcript::{self, CondenseOptions, NotATranscript, Role, Transcript};

mod files;
pub(crate) mod retry;
#[cfg(test)]
mod tests;

pub use files::{failed_jobs, queued_jobs};
use files::{
    redact_file, remove_failed, remove_job_if_unchanged, remove_stale_temp_files,
    set_aside_damaged_jobs,
};

pub const LOG: &str = "worker.log";

/// Most bytes of condensed transcript sent to the LLM (the prompt around
/// it adds about 2 KB): a longer one loses its least useful lines first.
pub(crate) const MAX_INPUT: usize = 21_000;

/// What the worker needs from the world outside the project.
#[derive(Debug, Clone, Default)]
pub struct Surroundings {
    /// `PATH`, to find the LLM CLI.
    pub path: Option<OsString>,
    /// The home folder, to find transcripts a job names no path for.
    pub home: Option<PathBuf>,
}

impl Surroundings {
    pub fn from_process() -> Self {
        Surroundings {
            path: crate::env::path_var(),
            home: crate::env::home(),
        }
    }
}

/// The longest the worker waits for an agent to finish writing the
/// transcript of a session that just ended.
const SETTLE: Duration = Duration::from_secs(30);

/// How one session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Distilled by the LLM into `file` (project-relative).
    Captured { session_id: String, file: String },
    /// Written from the heuristic extraction; the transcript is in `failed/`.
    Heuristic {
        session_id: String,
        file: String,
        reason: WithoutLlm,
    },
    /// Nothing could be written (no transcript); the job is in `failed/`.
    Failed { session_id: String, reason: String },
    /// Nothing to capture (an empty conversation).
    Skipped { session_id: String, why: String },
}

/// Why a session was written from its transcript alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WithoutLlm {
    #[error("{0}")]
    Failed(LlmFailure),
    #[error("the LLM's answer was not usable: {0}")]
    Unusable(UnusableAnswer),
}

/// One session's outcome as every front end reports it: the CLI's
/// `capture --json` and the Node addon's `capture()` map this, field for field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OutcomeReport {
    pub session_id: String,
    /// `captured`, `heuristic` (written without the LLM; kept in failed/),
    /// `failed` or `skipped`.
    pub status: &'static str,
    /// The session file written, relative to the project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why it was not distilled by the LLM, or skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Outcome {
    /// The outcome as front ends report it.
    pub fn report(&self) -> OutcomeReport {
        let (session_id, status, file, reason) = match self {
            Outcome::Captured { session_id, file } => (session_id, "captured", Some(file), None),
            Outcome::Heuristic {
                session_id,
                file,
                reason,
            } => (
                session_id,
                "heuristic",
                Some(file),
                Some(reason.to_string()),
            ),
            Outcome::Failed { session_id, reason } => {
                (session_id, "failed", None, Some(reason.clone()))
            }
            Outcome::Skipped { session_id, why } => {
                (session_id, "skipped", None, Some(why.clone()))
            }
        };
        OutcomeReport {
            session_id: session_id.clone(),
            status,
            file: file.cloned(),
            reason,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Captured { session_id, file } => write!(f, "captured {session_id} into {file}"),
            Outcome::Heuristic {
                session_id,
                file,
                reason,
            } => write!(
                f,
                "captured {session_id} into {file} without the LLM ({reason}); the transcript waits in .thehook/failed/"
            ),
            Outcome::Failed { session_id, reason } => {
                write!(f, "could not capture {session_id}: {reason}")
            }
            Outcome::Skipped { session_id, why } => write!(f, "skipped {session_id}: {why}"),
        }
    }
}

/// `2 captured, 1 heuristic, 1 skipped`: what a run did, for logs.
pub fn summary(outcomes: &[Outcome]) -> String {
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let parts = [
        (count(|o| matches!(o, Outcome::Captured { .. })), "captured"),
        (
            count(|o| matches!(o, Outcome::Heuristic { .. })),
            "heuristic",
        ),
        (count(|o| matches!(o, Outcome::Failed { .. })), "failed"),
        (count(|o| matches!(o, Outcome::Skipped { .. })), "skipped"),
    ];
    let said: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    if said.is_empty() {
        "nothing".into()
    } else {
        said.join(", ")
    }
}

/// An exclusive lock that one capture worker per project holds while it
/// works. The OS releases it when the process dies, so a crashed worker
/// never blocks the next. `None` when another worker holds it and `wait`
/// is false.
pub fn worker_lock(project: &Project, wait: bool) -> Result<Option<std::fs::File>> {
    let path = project.queue_dir().join(".worker.lock");
    let file = crate::project::open_lock_file(&path)?;
    if wait {
        file.lock().at("cannot lock", &path)?;
        return Ok(Some(file));
    }
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io("cannot lock", &path, e)),
    }
}

/// One run of the pipeline over a project.
pub struct Worker<'a> {
    project: Project,
    config: Config,
    paths: &'a SearchPaths,
    around: Surroundings,
    memory: Option<Memory>,
}

impl<'a> Worker<'a> {
    pub fn new(project: Project, paths: &'a SearchPaths, around: Surroundings) -> Result<Self> {
        let config = Config::load(&project.config_path())?.config;
        Ok(Worker {
            project,
            config,
            paths,
            around,
            memory: None,
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Captures every queued session, including those queued while it ran.
    pub fn drain(&mut self) -> Vec<Outcome> {
        remove_stale_temp_files(&self.project);
        for stem in set_aside_damaged_jobs(&self.project) {
            self.log(&format!(
                "queue/{stem}.json is not a readable job: moved to failed/"
            ));
        }
        let mut outcomes = Vec::new();
        let mut tried = std::collections::HashSet::new();
        loop {
            let jobs: Vec<(PathBuf, Job)> = queued_jobs(&self.project)
                .into_iter()
                .filter(|(_, job)| {
                    !tried.contains(&(job.session_id.clone(), job.queued_at.clone()))
                })
                .collect();
            if jobs.is_empty() {
                return outcomes;
            }
            for (file, job) in jobs {
                tried.insert((job.session_id.clone(), job.queued_at.clone()));
                let outcome = self.capture(&job);
                self.log(&outcome.to_string());
                remove_job_if_unchanged(&file, &job);
                outcomes.push(outcome);
            }
        }
    }

    /// Captures again every session in `failed/`.
    pub fn retry(&mut self) -> Vec<Outcome> {
        failed_jobs(&self.project)
            .into_iter()
            .map(|(_, job)| self.recapture(job, "retry"))
            .collect()
    }

    /// Captures again the failed sessions whose automatic attempt is due
    /// (`worker/retry.rs`), while the daily budget allows.
    pub fn retry_due(&mut self) -> Vec<Outcome> {
        let mut outcomes = Vec::new();
        for (_, job) in retry::due(&self.project, jiff::Timestamp::now()) {
            if self.over_budget().is_some() {
                break;
            }
            outcomes.push(self.recapture(job, "automatic retry"));
        }
        outcomes
    }

    fn recapture(&mut self, mut job: Job, how: &str) -> Outcome {
        let stem = file_stem(&job.session_id);
        let copy = self.project.failed_dir().join(format!("{stem}.jsonl"));
        // The original holds subagents and whatever came after; the
        // redacted copy stands in when the agent deleted it.
        if !job.transcript_path.as_ref().is_some_and(|p| p.is_file()) && copy.is_file() {
            job.transcript_path = Some(copy);
        }
        let outcome = self.capture(&job);
        self.log(&format!("{how}: {outcome}"));
        outcome
    }

    /// What of `llm.daily_budget` is spent, when nothing more may be spent today.
    fn over_budget(&self) -> Option<String> {
        crate::capture::budget::spent_today(&self.project, &self.config.llm.daily_budget)
    }

    /// Captures one transcript file given by hand.
    pub fn capture_file(&mut self, path: &Path) -> Result<Outcome> {
        let t = crate::agents::read::load(path)?;
        let agent = t.format.and_then(Agent::named).unwrap_or(Agent::DEFAULT);
        let session_id = t.session_id.clone().ok_or_else(|| Error::Transcript {
            path: path.to_path_buf(),
            problem: NotATranscript::NoSessionId,
            formats: crate::agents::titles(),
        })?;
        let job = Job {
            version: crate::capture::queue::JOB_VERSION,
            session_id,
            agent,
            transcript_path: Some(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
            cwd: None,
            origin: "manual".into(),
            queued_at: jiff::Timestamp::now().to_string(),
            reason: None,
        };
        let outcome = self.capture(&job);
        self.log(&format!("by hand: {outcome}"));
        Ok(outcome)
    }

    /// Appends to `logs/worker.log`.
    pub fn log(&self, line: &str) {
        logs::append(&self.project, LOG, line);
    }

    /// The whole pipeline for one session.
    fn capture(&mut self, job: &Job) -> Outcome {
        let id = job.session_id.clone();
        let Some(path) = self.locate(job) else {
            let reason = match &job.transcript_path {
                Some(p) => format!("its transcript {} is gone", p.display()),
                None => "the agent named no transcript and none was found for it".into(),
            };
            return self.fail_without_file(job, None, reason);
        };
        let mut t = match crate::agents::read::load(&path) {
            Ok(t) => t,
            Err(e) => return self.fail_without_file(job, Some(&path), first_line(&e.to_string())),
        };
        let redacting = self.config.capture.redact_secrets;
        let mut found = Findings::default();
        if redacting {
            crate::transcript::redact_transcript(&mut t, &mut found);
        }
        if !has_conversation(&t) {
            crate::capture::queue::mark_skipped(&self.project, &id);
            return Outcome::Skipped {
                session_id: id,
                why: "the transcript holds no conversation".into(),
            };
        }
        let cwd = t.cwd.clone();
        // The LLM never sees the developer's folders, so it cannot write them.
        let mut condensed = paths::scrub(&llm_input(&t), cwd.as_deref());
        if redacting {
            condensed = redact::redact_counting(&condensed, &mut found).into_owned();
        }
        let asked = self.ask(&extract::prompt(&condensed), Some(job.agent));
        let over_budget = matches!(asked, Err(LlmFailure::OverBudget(_)));
        let answer = asked.map_err(WithoutLlm::Failed).and_then(|answer| {
            let answer = if redacting {
                redact::redact(&answer).into_owned()
            } else {
                answer
            };
            extract::parse_answer(&answer).map_err(WithoutLlm::Unusable)
        });
        let mut facts = transcript::facts(&t);
        facts.files_changed = paths::relative_files(&facts.files_changed, cwd.as_deref());
        let (distilled, failure) = match answer {
            Ok(d) => (d, None),
            Err(why) => (extract::heuristic(&facts), Some(why)),
        };
        let mut meta = self.meta(job, &t, &distilled, failure.is_some());
        meta.files = facts.files_changed;
        let text = paths::scrub(&extract::render(&meta, &distilled), cwd.as_deref());
        let file = match self.write_session(&meta, &text) {
            Ok(f) => f,
            Err(e) => return self.fail_without_file(job, Some(&path), e.to_string()),
        };
        if found.total() > 0 {
            self.log(&format!(
                "redacted {} secret(s) from {id}: {:?}",
                found.total(),
                found.kinds
            ));
        }
        match failure {
            None => {
                remove_failed(&self.project, &id);
                Outcome::Captured {
                    session_id: id,
                    file,
                }
            }
            Some(reason) => {
                if let Err(e) = self.keep_failed(job, Some(&path), &reason.to_string(), over_budget)
                {
                    self.log(&format!("could not keep {id} in failed/: {e}"));
                }
                Outcome::Heuristic {
                    session_id: id,
                    file,
                    reason,
                }
            }
        }
    }

    /// Runs the configured LLM on `prompt`. A failure is redacted: the
    /// CLI's stderr may echo the prompt, and the reason is written to disk.
    /// Every call is recorded in `.thehook/logs/llm.log` (the bill).
    pub fn ask(
        &self,
        prompt: &str,
        agent: Option<crate::agents::Agent>,
    ) -> std::result::Result<String, LlmFailure> {
        if let Some(spent) = self.over_budget() {
            return Err(LlmFailure::OverBudget(spent));
        }
        let cmd =
            crate::capture::llm::resolve(&self.config.llm, self.around.path.as_deref(), agent)?;
        let timeout = Duration::from_secs(self.config.llm.timeout_secs.max(1));
        let started = std::time::Instant::now();
        let answer = crate::capture::llm::run(&cmd, prompt, timeout, self.project.root());
        crate::capture::bill::record(&self.project, &cmd, prompt, &answer, started.elapsed());
        answer.map(|a| a.text).map_err(LlmFailure::redacted)
    }

    /// The job's transcript. For a session that just ended, waits (up to
    /// [`SETTLE`]) while its agent is still writing it.
    fn locate(&self, job: &Job) -> Option<PathBuf> {
        let ended = job
            .queued_at
            .parse::<jiff::Timestamp>()
            .map(std::time::SystemTime::from)
            .unwrap_or_else(|_| std::time::SystemTime::now());
        let deadline = std::time::Instant::now() + SETTLE;
        loop {
            let found = self.find_transcript(job);
            let settled = job.origin != "hook"
                || job.agent.spec().transcript_settled(found.as_deref(), ended);
            if settled || std::time::Instant::now() >= deadline {
                return found;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn find_transcript(&self, job: &Job) -> Option<PathBuf> {
        if let Some(p) = job.transcript_path.as_ref().filter(|p| p.is_file()) {
            return Some(p.clone());
        }
        // Cursor's CLI and Copilot CLI name none: the session id finds it
        // in the agent's store (as a file name, so a payload's id never
        // walks out of the folder).
        let home = self.around.home.as_ref()?;
        crate::agents::transcript_of(job.agent, &file_stem(&job.session_id), home)
    }

    fn meta(&self, job: &Job, t: &Transcript, d: &Distilled, heuristic: bool) -> SessionMeta {
        let date = t
            .started
            .as_deref()
            .and_then(|s| s.parse::<jiff::Timestamp>().ok())
            .or_else(|| job.queued_at.parse().ok())
            .unwrap_or_else(jiff::Timestamp::now);
        let ended = t
            .ended
            .as_deref()
            .and_then(|s| s.parse::<jiff::Timestamp>().ok())
            .map(|d| d.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
        SessionMeta {
            session_id: job.session_id.clone(),
            agent: job.agent.as_str().to_string(),
            date: date.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            ended,
            files: Vec::new(),
            branch: t
                .git_branch
                .clone()
                .filter(|b| !b.is_empty() && b != "HEAD"),
            title: d
                .title
                .clone()
                .or_else(|| t.title.clone())
                // The slug comes from it: no home folder in a file name either.
                .map(|s| paths::scrub(&redact::redact(&s), t.cwd.as_deref())),
            extracted: heuristic.then(|| "heuristic".to_string()),
        }
    }

    /// Writes the session file (the same file again for a session captured
    /// before) and indexes it, under the project lock.
    fn write_session(&mut self, meta: &SessionMeta, text: &str) -> Result<String> {
        // Opening may take the project lock itself (to create the index), so
        // it happens before the lock, once; `sync` never opens.
        let opened = self.open_memory();
        if let Err(e) = &opened {
            self.log(&format!(
                "the index cannot be opened: {}",
                first_line(&e.to_string())
            ));
        }
        let _lock = self.project.lock()?;
        let path = session_path(&self.project, meta);
        let again = path.exists();
        write_atomic(&path, text.as_bytes())?;
        if again {
            crate::capture::ledger::LEDGER.remove(&self.project, &meta.session_id)?;
        }
        let rel = self.project.relative(&path);
        if let Err(e) = opened.and_then(|()| self.sync()) {
            // The markdown is the truth: the next sync indexes it.
            self.log(&format!(
                "{rel} is written but not indexed yet: {}",
                first_line(&e.to_string())
            ));
        }
        Ok(rel)
    }

    /// Opens the index once per run. Call it before taking the project
    /// lock: creating or repairing the index takes that lock too.
    pub fn open_memory(&mut self) -> Result<()> {
        if self.memory.is_none() {
            self.memory = Some(Memory::open(self.project.root(), self.paths, false)?);
        }
        Ok(())
    }

    /// Brings the index up to date. The caller holds the project lock and
    /// opened the memory first ([`Worker::open_memory`]); this never opens
    /// it, as opening may take the lock its caller holds (a worker whose
    /// index could not be created waited on itself for ever that way).
    pub fn sync(&mut self) -> Result<()> {
        let Some(memory) = self.memory.as_mut() else {
            return Err(IndexFailure::Damaged(
                "the index was not opened before the project lock was taken".into(),
            )
            .into());
        };
        memory.sync(&|_, _| {})?;
        for notice in memory.take_notices() {
            logs::append(&self.project, LOG, &notice);
        }
        Ok(())
    }

    fn fail_without_file(&self, job: &Job, path: Option<&Path>, reason: String) -> Outcome {
        if let Err(e) = self.keep_failed(job, path, &reason, false) {
            self.log(&format!(
                "could not keep {} in failed/: {e}",
                job.session_id
            ));
        }
        Outcome::Failed {
            session_id: job.session_id.clone(),
            reason,
        }
    }

    /// `failed/<id>.jsonl` (the redacted transcript), `<id>.json` (the
    /// job, for `--retry`), `<id>.retry` (when it is tried again by itself)
    /// and `<id>.reason`, the last written last: it is what counts a
    /// capture as failed.
    fn keep_failed(
        &self,
        job: &Job,
        transcript: Option<&Path>,
        reason: &str,
        over_budget: bool,
    ) -> Result<()> {
        let dir = self.project.failed_dir();
        let stem = file_stem(&job.session_id);
        let copy = dir.join(format!("{stem}.jsonl"));
        if let Some(src) = transcript.filter(|p| *p != copy) {
            if let Ok(bytes) = std::fs::read(src) {
                let kept = if self.config.capture.redact_secrets {
                    redact_file(&bytes)
                } else {
                    bytes
                };
                write_atomic(&copy, &kept)?;
            }
        }
        let json = serde_json::to_vec_pretty(job).unwrap_or_default();
        write_atomic(&dir.join(format!("{stem}.json")), &json)?;
        let plan =
            retry::read(&self.project, &job.session_id).after(over_budget, &jiff::Zoned::now());
        retry::write(&self.project, &job.session_id, &plan)?;
        let text = format!(
            "{reason}\n\nsession: {}\nagent: {}\ntranscript: {}\nfailed at: {}\nretry: thehook capture --retry\n",
            job.session_id,
            job.agent.as_str(),
            job.transcript_path
                .as_ref()
                .map_or("(none)".to_string(), |p| p.display().to_string()),
            jiff::Timestamp::now()
        );
        write_atomic(&dir.join(format!("{stem}.reason")), text.as_bytes())
    }
}

/// Whether anyone said anything.
fn has_conversation(t: &Transcript) -> bool {
    t.entries
        .iter()
        .any(|e| matches!(e.role, Role::User | Role::Assistant) && !e.blocks.is_empty())
}

/// The condensed transcript as the LLM gets it, within [`MAX_INPUT`].
pub(crate) fn llm_input(t: &Transcript) -> String {
    transcript::condense_lines(t, &CondenseOptions::default()).fit(MAX_INPUT)
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// The file a session is written to: the one that already holds it, else
/// `sessions/<YYYY-MM-DD-HHmm>-<slug>-<first 8 of the id>.md`. The id is in
/// every new name because uniqueness checked here is only this clone's: two
/// teammates' sessions of the same minute and title would otherwise get one
/// name and conflict when their clones merge.
fn session_path(project: &Project, meta: &SessionMeta) -> PathBuf {
    if let Some(existing) = store::session_files(project)
        .into_iter()
        .find(|f| f.front_matter.session_id.as_deref() == Some(meta.session_id.as_str()))
    {
        return existing.path;
    }
    let stamp = meta
        .date
        .parse::<jiff::Timestamp>()
        .map(|t| t.strftime("%Y-%m-%d-%H%M").to_string())
        .unwrap_or_else(|_| "undated".into());
    let short: String = file_stem(&meta.session_id).chars().take(8).collect();
    let slug = meta.title.as_deref().map(extract::slug).unwrap_or_default();
    let named = if slug.is_empty() {
        stamp
    } else {
        format!("{stamp}-{slug}")
    };
    let dir = project.sessions_dir();
    // Another session's file is never overwritten: the whole id, then a number.
    let stem = file_stem(&meta.session_id);
    let candidates = [format!("{named}-{short}"), format!("{named}-{stem}")];
    candidates
        .into_iter()
        .chain((2..).map(|n| format!("{named}-{stem}-{n}")))
        .map(|name| dir.join(format!("{name}.md")))
        .find(|p| !p.exists())
        .expect("an unused name is found")
}
