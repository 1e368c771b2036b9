//! Step 5: the session file's text: its front matter from the job and the
//! transcript, its sections from the distillation, no home folder anywhere.

use super::condense::Input;
use super::distil::Distillation;
use super::read::Read;
use crate::capture::extract::{self, Distilled, SessionMeta};
use crate::capture::outcome::WithoutLlm;
use crate::capture::paths;
use crate::capture::queue::Job;
use crate::text::redact;
use crate::transcript::Transcript;

/// A session file to write.
pub(crate) struct SessionText {
    pub(crate) meta: SessionMeta,
    pub(crate) text: String,
    pub(crate) without_llm: Option<WithoutLlm>,
    pub(crate) over_budget: bool,
}

pub(crate) fn render(job: &Job, read: &Read, input: Input, d: Distillation) -> SessionText {
    let t = &read.transcript;
    let mut meta = meta(job, t, &d.distilled, d.without_llm.is_some());
    meta.files = input.facts.files_changed;
    let text = extract::render(&meta, &d.distilled);
    // No home folder in the file, nor in its name (made from the title).
    let cwd = t.cwd.as_deref();
    let text = paths::scrub(&text, cwd);
    meta.title = meta.title.map(|title| paths::scrub(&title, cwd));
    SessionText {
        meta,
        text,
        without_llm: d.without_llm,
        over_budget: d.over_budget,
    }
}

fn meta(job: &Job, t: &Transcript, d: &Distilled, heuristic: bool) -> SessionMeta {
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
            .map(|s| redact::redact(&s).into_owned()),
        extracted: heuristic.then(|| "heuristic".to_string()),
    }
}
