//! The session functions: retrieve (session start), capture, consolidate,
//! and init.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use thehook_core::agents::Agent;
use thehook_core::capture::{with_worker, Outcome};
use thehook_core::Project;

use crate::memories::search_paths;
use crate::task::{CoreTask, Failure};

fn start_dir(dir: Option<&str>) -> Result<PathBuf, Failure> {
    match dir {
        Some(d) => Ok(PathBuf::from(d)),
        None => {
            std::env::current_dir().map_err(|e| Failure::usage(format!("no current folder: {e}")))
        }
    }
}

fn agent(name: Option<&str>) -> Result<Option<Agent>, Failure> {
    name.map(|n| {
        Agent::parse(n).ok_or_else(|| {
            Failure::usage(format!(
                "agent {n:?} is unknown: use claude, cursor, codex or gemini"
            ))
        })
    })
    .transpose()
}

/// Options of `retrieve`.
#[napi(object)]
#[derive(Default)]
pub struct RetrieveOptions {
    /// Where the session runs when the payload has no `cwd` (default: `process.cwd()`).
    pub project_dir: Option<String>,
    /// The agent the payload comes from: claude, cursor, codex or gemini (its shape can overrule it).
    pub agent: Option<String>,
}

/// What the session-start hook answers.
#[napi(object)]
pub struct RetrieveResult {
    /// The JSON for the agent (memory to inject); absent when there is nothing to say.
    pub output: Option<String>,
    /// One line on what was decided (the hook log's).
    pub log: String,
}

/// The session-start hook in-process: `payload` is the agent's stdin JSON.
/// Unlike the `thehook retrieve` command, it starts no background half.
#[napi(ts_return_type = "Promise<RetrieveResult>")]
pub fn retrieve(
    payload: String,
    options: Option<RetrieveOptions>,
) -> AsyncTask<CoreTask<RetrieveResult>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let cwd = start_dir(o.project_dir.as_deref())?;
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let r = thehook_core::inject::retrieve::retrieve(
            &payload,
            agent(o.agent.as_deref())?,
            &cwd,
            home.as_deref(),
            &search_paths(),
        )?;
        Ok(RetrieveResult {
            output: r.output.map(|v| v.to_string()),
            log: r.log,
        })
    }))
}

/// Options of `capture`.
#[napi(object)]
#[derive(Default)]
pub struct CaptureOptions {
    pub project_dir: Option<String>,
    /// Capture this transcript file; without it, capture again the failed sessions (`--retry`).
    pub transcript: Option<String>,
}

/// What became of one session.
#[napi(object)]
pub struct CaptureOutcome {
    pub session_id: String,
    /// captured, heuristic (written without the LLM; kept in failed/), failed or skipped.
    pub status: String,
    /// The session file written, relative to the project.
    pub file: Option<String>,
    /// Why it was not distilled by the LLM, or skipped.
    pub reason: Option<String>,
}

impl From<Outcome> for CaptureOutcome {
    fn from(o: Outcome) -> CaptureOutcome {
        let (session_id, status, file, reason) = match o {
            Outcome::Captured { session_id, file } => (session_id, "captured", Some(file), None),
            Outcome::Heuristic {
                session_id,
                file,
                reason,
            } => (session_id, "heuristic", Some(file), Some(reason)),
            Outcome::Failed { session_id, reason } => (session_id, "failed", None, Some(reason)),
            Outcome::Skipped { session_id, why } => (session_id, "skipped", None, Some(why)),
        };
        CaptureOutcome {
            session_id,
            status: status.into(),
            file,
            reason,
        }
    }
}

/// Captures a transcript by hand, or the failed sessions again, through the LLM CLI.
#[napi(ts_return_type = "Promise<Array<CaptureOutcome>>")]
pub fn capture(options: Option<CaptureOptions>) -> AsyncTask<CoreTask<Vec<CaptureOutcome>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let project = Project::discover(&start_dir(o.project_dir.as_deref())?);
        let outcomes = with_worker(
            &project,
            &search_paths(),
            || {},
            |w| match &o.transcript {
                Some(path) => w.capture_file(Path::new(path)).map(|o| vec![o]),
                None => Ok(w.retry()),
            },
        )?;
        Ok(outcomes.into_iter().map(CaptureOutcome::from).collect())
    }))
}

/// What `consolidate` merged.
#[napi(object)]
pub struct ConsolidateResult {
    /// Sessions merged (0: none waited).
    pub sessions: u32,
    /// Items in conventions.md, architecture.md and history.md before and after.
    pub items_before: u32,
    pub items_after: u32,
}

/// Merges the sessions not yet consolidated into knowledge/ through the LLM CLI.
#[napi(ts_return_type = "Promise<ConsolidateResult>")]
pub fn consolidate(
    options: Option<crate::memory_api::ProjectOptions>,
) -> AsyncTask<CoreTask<ConsolidateResult>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let project = Project::discover(&start_dir(o.project_dir.as_deref())?);
        let done = with_worker(
            &project,
            &search_paths(),
            || {},
            thehook_core::capture::consolidate::consolidate,
        )?;
        Ok(match done {
            Some(c) => ConsolidateResult {
                sessions: c.sessions as u32,
                items_before: c.items_before as u32,
                items_after: c.items_after as u32,
            },
            None => ConsolidateResult {
                sessions: 0,
                items_before: 0,
                items_after: 0,
            },
        })
    }))
}

/// Options of `init`.
#[napi(object)]
#[derive(Default)]
pub struct InitOptions {
    pub project_dir: Option<String>,
    /// Agents to wire: claude, cursor, codex, gemini (default: those found, else Claude Code).
    pub agents: Option<Vec<String>>,
    /// Also register the MCP server (`thehook mcp`).
    pub mcp: Option<bool>,
    /// The thehook program hooks run (default: the native binary of this package).
    pub bin: Option<String>,
}

/// One file init touched.
#[napi(object)]
pub struct InitChange {
    pub path: String,
    /// created, updated, unchanged, removed or kept.
    pub action: String,
    pub detail: String,
}

/// Sets up `.thehook/` and wires the agents' hooks, exactly as `thehook init` does.
#[napi(ts_return_type = "Promise<Array<InitChange>>")]
pub fn init(options: Option<InitOptions>) -> AsyncTask<CoreTask<Vec<InitChange>>> {
    let o = options.unwrap_or_default();
    AsyncTask::new(CoreTask::new(move || {
        let dir = start_dir(o.project_dir.as_deref())?;
        let mut args = vec![
            "thehook".to_string(),
            "-C".into(),
            dir.to_string_lossy().into_owned(),
            "init".into(),
            "--json".into(),
        ];
        if let Some(agents) = &o.agents {
            args.extend(["--agent".into(), agents.join(",")]);
        }
        if o.mcp == Some(true) {
            args.push("--mcp".into());
        }
        if let Some(bin) = &o.bin {
            args.extend(["--bin".into(), bin.clone()]);
        }
        crate::set_npm_bin();
        let (code, stdout, stderr) = run_captured(args);
        if code != 0 {
            return Err(Failure {
                code: "THEHOOK_SETTINGS".into(),
                message: stderr.trim().trim_start_matches("error: ").to_string(),
            });
        }
        let answer: serde_json::Value = serde_json::from_str(&stdout)
            .map_err(|e| Failure::usage(format!("init printed no JSON: {e}")))?;
        let text = |c: &serde_json::Value, k: &str| {
            c.get(k)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        Ok(answer["changes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| InitChange {
                path: text(c, "path"),
                action: text(c, "action"),
                detail: text(c, "detail"),
            })
            .collect())
    }))
}

/// Runs the command line with its output kept: (exit code, stdout, stderr).
fn run_captured(args: Vec<String>) -> (i32, String, String) {
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (stdout, stderr) = (Sink::default(), Sink::default());
    let mut out = thehook_cli::Output {
        stdout: Box::new(stdout.clone()),
        stderr: Box::new(stderr.clone()),
        stdin: Box::new(std::io::empty()),
        color: false,
        stderr_tty: false,
    };
    let code = thehook_cli::run(args, &mut out);
    drop(out);
    let text = |s: Sink| {
        String::from_utf8_lossy(&s.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    };
    (code, text(stdout), text(stderr))
}
