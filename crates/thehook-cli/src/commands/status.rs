//! `thehook status`: the core's report, as text or JSON.

use thehook_core::model::{Availability, SearchPaths};
use thehook_core::policy::trust::DEFAULT_MIN_DAYS;
use thehook_core::Project;

use crate::args::JsonFlag;
use crate::exit::{CommandResult, Exit};
use crate::output::{Output, Style};

use super::memory::{open, Opening};

pub(super) fn status(
    project: &Project,
    paths: &SearchPaths,
    args: JsonFlag,
    out: &mut Output,
) -> CommandResult {
    let memory = open(project, paths, Opening::EXISTING, out)?;
    let status = thehook_core::status::Status::of(&memory)?;
    if args.json {
        out.print(&serde_json::to_string_pretty(&status).expect("json"));
        return Ok(Exit::Success);
    }
    out.print(&format!("project      {}", status.project));
    out.print(&format!("sessions     {}", status.sessions));
    out.print(&format!("knowledge    {} files", status.knowledge_files));
    let types: Vec<String> = status
        .index
        .by_type
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    out.print(&format!(
        "items        {} ({})",
        status.index.items,
        types.join(", ")
    ));
    let stale = warn_unless_zero(out, status.stale_items);
    out.print(&format!(
        "stale        {stale} (not injected; see `thehook review`)"
    ));
    let withheld = warn_unless_zero(out, status.withheld_items);
    out.print(&format!(
        "withheld     {withheld} (a safety rule keeps them from agents; see `thehook review`)"
    ));
    let trust = &status.trust;
    let unverified = warn_unless_zero(out, trust.unverified);
    let whose = match (&trust.unknown_authors, trust.configured) {
        (Some(why), _) if trust.authors == 0 => format!("nobody: {why}"),
        (_, true) => format!("{} author(s), listed in trust.authors", trust.authors),
        (_, false) => format!(
            "{} author(s): you and those with commits outside .thehook/ on {DEFAULT_MIN_DAYS} days or more",
            trust.authors
        ),
    };
    out.print(&format!(
        "trusted      {whose}; {unverified} action line(s) unverified (see `thehook review`)"
    ));
    if let Some(why) = trust.unknown_authors.as_ref().filter(|_| trust.authors > 0) {
        out.print(&out.paint(Style::Warn, &format!("             {why}")));
    }
    let check = &status.safety_check;
    let awaiting = match check.awaiting_check {
        0 => String::new(),
        n => format!("; {n} new items wait for it"),
    };
    out.print(&format!("checked by   {}{awaiting}", check.summary));
    let failed = warn_unless_zero(out, status.failed_captures);
    out.print(&format!(
        "failed       {failed} (retry with `thehook capture --retry`)"
    ));
    out.print(&format!("queued       {}", status.queued_captures));
    out.print(&format!(
        "index        {} ({} KiB, {} vectors)",
        status.index_path,
        status.index.size_bytes / 1024,
        status.index.vectors
    ));
    let hooks = match status.hooks.is_empty() {
        true => "none wired in this project".to_string(),
        false => status.hooks.join(", "),
    };
    out.print(&format!("hooks        {hooks}"));
    let spend = |s: &thehook_core::capture::bill::Spend| {
        let estimated = match s.estimated_calls {
            0 => String::new(),
            n => format!(" ({n} estimated)"),
        };
        format!(
            "{} call(s), {} tokens in, {} out, ${:.4}{estimated}",
            s.calls, s.input_tokens, s.output_tokens, s.cost_usd
        )
    };
    let spent = match &status.llm.budget_spent {
        Some(spent) => format!("; today's budget is spent ({spent}, llm.daily_budget)"),
        None => String::new(),
    };
    out.print(&format!(
        "llm          today {}; last 30 days {}{spent}",
        spend(&status.llm.today),
        spend(&status.llm.last_30_days)
    ));
    out.print(&format!(
        "given        {}",
        given_line(&status.given_last_30_days)
    ));
    match &status.embeddings {
        Availability::Ready {
            model,
            model_dir,
            runtime,
            ..
        } => out.print(&format!(
            "embeddings   {model} from {} ({}){}",
            model_dir.path.display(),
            model_dir.source,
            if runtime.is_none() {
                "; no ONNX Runtime, the built-in encoder embeds items"
            } else {
                ""
            }
        )),
        Availability::Missing { reason, fix } => {
            let line = out.paint(Style::Warn, &format!("lexical-only: {reason}"));
            out.print(&format!("embeddings   {line}\n             fix: {fix}"));
        }
    }
    Ok(Exit::Success)
}

/// The share of given lines used, per hook.
fn given_line(counts: &thehook_core::given::kept::UseCounts) -> String {
    if counts.given == 0 {
        return "nothing given to a session captured in the last 30 days".into();
    }
    let share = |s: thehook_core::given::kept::Share| match s.given {
        0 => "-".to_string(),
        n => format!("{}/{n}", s.used),
    };
    format!(
        "{} of {} lines used in the last 30 days ({:.0}%; start {}, prompts {}, files {})",
        counts.used,
        counts.given,
        100.0 * counts.used as f64 / counts.given as f64,
        share(counts.start),
        share(counts.prompt),
        share(counts.file)
    )
}

/// A count that asks for attention when it is not zero.
fn warn_unless_zero(out: &Output, n: usize) -> String {
    match n {
        0 => n.to_string(),
        _ => out.paint(Style::Warn, &n.to_string()),
    }
}
