//! The subagent hook: what a subagent is given when it starts. A subagent
//! starts with a context of its own, which holds nothing the main thread
//! was given, so it is answered on its own: what memory holds on its task
//! (the prompt hook's search, on the task's words and the files it names),
//! then, for the types `retrieval.subagents` gives `full`, what a session
//! start gives, within `retrieval.subagent_token_budget` together; nothing
//! an earlier subagent of the session was given. What it is given is
//! recorded as its own context's ([`Given::of_subagent`]), so its file hook
//! answers once per subagent.
//!
//! Only Claude Code says a subagent's task, in the `Agent` tool call that
//! starts it (its `SubagentStart` names only the type): that call runs this
//! hook too, which keeps the task for the subagent to claim
//! ([`crate::given::handed`]). A subagent of Codex or Copilot CLI, whose
//! start says no task, is answered on the session's latest prompt.

use std::collections::HashSet;

use crate::agents::HookPayload;
use crate::config::SubagentMode;
use crate::error::Result;
use crate::given::handed::{Handed, Task};
use crate::given::{Given, Hook};
use crate::inject::git_context::GitContext;
use crate::inject::{prompt, session_start, Added};
use crate::memory::rank::tally::TallyFile;
use crate::memory::Memory;
use crate::model::SearchPaths;
use crate::project::Project;
use crate::store::item::file_of_citation;

/// The heading of what memory holds on the subagent's task.
const HEADING: &str = "# Project memory (thehook) on this task";
/// At most this many lines on its task, against a prompt's 3: a session
/// may start several subagents. On the replayed histories (tuning half),
/// with the section after a compaction, 2 lines put what sessions were
/// given 37% over what they were given before subagents and compactions
/// were answered, 1 line 25% (docs/benchmarks.md).
const MAX_ITEMS: usize = 1;
/// A token is about this many characters of English, for the share of the
/// budget the task's lines take before the session-start block is cut.
const CHARS_PER_TOKEN: usize = 4;
/// The session-start block is given at least this many tokens in `full`.
const LEAST_START_TOKENS: usize = 100;

/// Answers a subagent-hook payload in `project`, which has memory (the
/// hook protocol, `crate::hook`, checked): keeps the task a tool call hands
/// a subagent, or answers a subagent's start.
pub(crate) fn on_subagent(
    payload: &HookPayload,
    project: &Project,
    paths: &SearchPaths,
) -> Result<Added> {
    let said = |log: String| Ok(Added::nothing(log));
    let Some(session) = payload.session_id.as_deref() else {
        return said(format!("{}: the payload names no session", payload.agent));
    };
    if let Some(handed) = &payload.handed {
        Handed::of(project, session).hand(handed)?;
        let of_type = handed.agent_type.as_deref().unwrap_or("subagent");
        return said(format!(
            "kept the task handed to a subagent of type {of_type}"
        ));
    }
    let output = payload.agent.description().protocol.subagent;
    if !output.adds_context() {
        return said(format!(
            "{} cannot add context to a subagent",
            payload.agent
        ));
    }
    let mut memory = Memory::open(project, paths, false)?;
    let retrieval = memory.config().retrieval.clone();
    let agent_type = payload.agent_type.as_deref();
    let of_type = agent_type.unwrap_or("subagent");
    let mode = retrieval.subagent_mode(agent_type);
    if mode == SubagentMode::None {
        return said(format!(
            "a subagent of type {of_type}: retrieval.subagents says none"
        ));
    }
    let subagent = payload.subagent.as_deref().unwrap_or(of_type);
    let record = Given::of_subagent(project, session, subagent);
    // What an earlier subagent of the session was given is not given to
    // its siblings (a session that starts subagents starts 3.5 on average
    // on the replayed histories' tuning half).
    let siblings = Given::of(project, session).given_to_subagents();
    let mut already = record.load();
    already.extend(siblings.iter().cloned());
    let task = Handed::of(project, session).claim(agent_type, subagent)?;
    let context = GitContext::cached(project);
    let mut notes = super::sync_for_hook(&mut memory, &super::focus_of(&context))?;
    // What agents used of what they were given ranks it up or down.
    let tally = TallyFile::load(project);
    let on_task = task_lines(
        &memory,
        task.as_ref(),
        &context,
        &already,
        &siblings,
        &tally,
    )?;
    let mut text = String::new();
    let mut cited: Vec<String> = on_task.iter().map(|f| f.cited.clone()).collect();
    if !on_task.is_empty() {
        text = prompt::block(HEADING, &on_task.iter().collect::<Vec<_>>());
    }
    if mode == SubagentMode::Full {
        let left = retrieval
            .subagent_token_budget
            .saturating_sub(text.len() / CHARS_PER_TOKEN)
            .max(LEAST_START_TOKENS);
        let skip: HashSet<String> = cited.iter().chain(&already).cloned().collect();
        let current = Some(session);
        if let Some((block, its)) = session_start::block_for_subagent(
            &memory,
            context,
            current,
            payload.agent,
            left,
            skip,
            &tally,
        )? {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&block);
            cited.extend(its);
        }
    }
    let from = match &task {
        Some(t) if t.handed => "its task",
        Some(_) => "the session's latest prompt",
        None => "no task",
    };
    if cited.is_empty() {
        return said(format!(
            "{}: a subagent of type {of_type} ({from}): nothing cleared the floor{notes}",
            payload.agent
        ));
    }
    let refs: Vec<&str> = cited.iter().map(String::as_str).collect();
    notes += &record.record(
        &Hook::Subagent {
            agent_type: of_type.to_string(),
        },
        &refs,
    );
    Ok(Added {
        log: format!(
            "{}: a subagent of type {of_type} ({from}, {}): {} items, {} on its task, {} chars{notes}",
            payload.agent,
            mode_name(mode),
            cited.len(),
            on_task.len(),
            text.len()
        ),
        output: output.with(&text),
    })
}

/// What memory holds on the task, as the prompt hook finds it, at most
/// [`MAX_ITEMS`] lines; nothing without a task.
fn task_lines(
    memory: &Memory,
    task: Option<&Task>,
    context: &GitContext,
    already: &HashSet<String>,
    siblings: &HashSet<String>,
    tally: &TallyFile,
) -> Result<Vec<prompt::Found>> {
    let Some(task) = task else {
        return Ok(Vec::new());
    };
    // One line per file, as at a prompt, and none from a file a sibling
    // was given a line of (its other lines are of the same earlier work).
    let siblings: HashSet<&str> = siblings.iter().map(|c| file_of_citation(c)).collect();
    let found: Vec<prompt::Found> = prompt::relevant(memory, &task.text, context, already, tally)?
        .into_iter()
        .filter(|f| !siblings.contains(file_of_citation(&f.cited)))
        .collect();
    Ok(prompt::fit(&found, MAX_ITEMS)
        .into_iter()
        .cloned()
        .collect())
}

fn mode_name(mode: SubagentMode) -> &'static str {
    match mode {
        SubagentMode::Full => "full",
        SubagentMode::Task => "task",
        SubagentMode::None => "none",
    }
}
