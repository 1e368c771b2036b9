//! One call of the user's LLM CLI, as capture and consolidation make it:
//! the daily budget checked first, the CLI resolved and run, the call
//! recorded in the bill, and a failure redacted (the CLI's stderr may echo
//! the prompt, and the reason is written to disk).

use std::ffi::OsStr;
use std::time::{Duration, Instant};

use crate::capture::bill::Purpose;
use crate::capture::llm::{self, LlmFailure};
use crate::config::Llm;
use crate::project::Project;

/// The answer of the LLM `config` names to `prompt`, asked for `purpose`:
/// a captured session's agent is the one whose own CLI `llm.cli: auto`
/// asks first.
pub(crate) fn ask(
    project: &Project,
    config: &Llm,
    path_var: Option<&OsStr>,
    prompt: &str,
    purpose: &Purpose,
) -> Result<String, LlmFailure> {
    let agent = match purpose {
        Purpose::Capture { agent, .. } => Some(*agent),
        Purpose::Consolidation => None,
    };
    if let Some(spent) = crate::capture::budget::spent_today(project, &config.daily_budget) {
        return Err(LlmFailure::OverBudget(spent));
    }
    let cmd = llm::resolve(config, path_var, agent)?;
    let timeout = Duration::from_secs(config.timeout_secs.max(1));
    let started = Instant::now();
    let answer = llm::run(&cmd, prompt, timeout, project.root());
    crate::capture::bill::record(project, &cmd, purpose, prompt, &answer, started.elapsed());
    answer.map(|a| a.text).map_err(LlmFailure::redacted)
}
