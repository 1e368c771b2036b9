//! `recall`, `reindex`, `status`, `remember`, `forget`.

use std::time::Instant;

use serde_json::json;
use thehook_core::memory::embed::{Availability, SearchPaths};
use thehook_core::memory::search::{Hit, Mode};
use thehook_core::{Error, ItemRef, Memory, Project, RecallRequest, RememberRequest};

use crate::args::{ForgetArgs, JsonFlag, RecallArgs, ReindexArgs, RememberArgs};
use crate::output::{Output, Style};
use crate::render::{hits_text, one_line};
use crate::{CommandResult, Exit};

/// Opens the project's memory and syncs it, with what was worked around
/// (a rebuild, warnings about the markdown) on stderr.
pub(super) fn open(
    project: &Project,
    paths: &SearchPaths,
    create: bool,
    out: &mut Output,
) -> Result<Memory, Error> {
    open_embedding(project, paths, create, None, out)
}

/// [`open`], with the model loading and embedding `query` on another thread
/// while the index syncs (a one-shot hybrid recall).
fn open_embedding(
    project: &Project,
    paths: &SearchPaths,
    create: bool,
    query: Option<&str>,
    out: &mut Output,
) -> Result<Memory, Error> {
    let mut memory = Memory::open(project.root(), paths, create)?;
    if let Some(query) = query {
        memory.start_embedding(query);
    }
    if memory.refresh_for_answer()? {
        super::start_detached(project.root(), &["reindex", "--pending"]);
    }
    print_notices(&mut memory, out);
    Ok(memory)
}

fn print_notices(memory: &mut Memory, out: &mut Output) {
    for notice in memory.take_notices() {
        out.note(&format!("warning: {notice}"));
    }
}

pub(super) fn recall(
    project: &Project,
    paths: &SearchPaths,
    args: RecallArgs,
    out: &mut Output,
) -> CommandResult {
    let mut request = RecallRequest::new(args.query.unwrap_or_default()).with_k(args.k)?;
    request.filter.kinds = args.types;
    request.filter.since = args.since;
    request.mode = args.mode.unwrap_or_default();
    let embed_now =
        (request.mode != Mode::Lexical && !args.stdin).then_some(request.query.as_str());
    let mut memory = match open_embedding(project, paths, false, embed_now, out) {
        Ok(m) => m,
        Err(e @ Error::NoMemory { .. }) if args.json || args.stdin => {
            // Machine readers still get well-formed (empty) answers.
            let queries: Vec<String> = match args.stdin {
                true => std::io::BufRead::lines(&mut *out.stdin)
                    .map_while(Result::ok)
                    .collect(),
                false => vec![request.query.clone()],
            };
            for q in queries {
                out.print(&json!({ "query": q, "mode": request.mode, "hits": [] }).to_string());
            }
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    if args.stdin {
        return recall_each_line(&mut memory, &request, out);
    }
    let result = memory.recall(&request);
    print_notices(&mut memory, out);
    let hits = result?;
    let mode = effective_mode(&memory, request.mode);
    let query = &request.query;
    if args.json {
        out.print(
            &serde_json::to_string_pretty(&json!({ "query": query, "mode": mode, "hits": hits }))
                .expect("json"),
        );
    } else if hits.is_empty() {
        out.err(&format!("nothing found for \"{query}\""));
    } else {
        print_hits(out, &hits);
    }
    Ok(Exit::found(!hits.is_empty()))
}

/// `reindex --pending`: one full sync, which embeds what waits for vectors.
/// Quiet, and a no-op while another one runs (each command that answered
/// early starts one).
fn embed_pending(project: &Project, paths: &SearchPaths) -> CommandResult {
    let Some(_running) = project.try_lock_embedding()? else {
        return Ok(Exit::Success);
    };
    let mut memory = Memory::open(project.root(), paths, false)?;
    memory.sync(&|_, _| {})?;
    Ok(Exit::Success)
}

/// `recall --stdin`: one query per input line, one JSON line per answer.
fn recall_each_line(memory: &mut Memory, base: &RecallRequest, out: &mut Output) -> CommandResult {
    let mut any = false;
    let mut line = String::new();
    loop {
        line.clear();
        match out.stdin.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                return Err(Error::Usage {
                    problem: format!("cannot read stdin: {e}"),
                    fix: "send UTF-8 text, one query per line".into(),
                })
            }
        }
        let request = RecallRequest {
            query: line.trim_end_matches(['\n', '\r']).to_string(),
            ..base.clone()
        };
        let result = memory.recall(&request);
        print_notices(memory, out);
        let mode = effective_mode(memory, request.mode);
        let answer = match result {
            Ok(hits) => {
                any |= !hits.is_empty();
                json!({ "query": request.query, "mode": mode, "hits": hits })
            }
            Err(e) => {
                json!({ "query": request.query, "mode": mode, "hits": [], "error": e.to_string() })
            }
        };
        out.print(&answer.to_string());
        let _ = out.stdout.flush();
    }
    Ok(Exit::found(any))
}

/// Hybrid degrades to lexical when no model is available; say what was used.
fn effective_mode(memory: &Memory, asked: Mode) -> Mode {
    match memory.availability() {
        Availability::Missing { .. } => Mode::Lexical,
        Availability::Ready { .. } => asked,
    }
}

fn print_hits(out: &mut Output, hits: &[Hit]) {
    let text = hits_text(hits, &|style, s| out.paint(style, s));
    out.print(&text);
}

pub(super) fn reindex(
    project: &Project,
    paths: &SearchPaths,
    args: ReindexArgs,
    out: &mut Output,
) -> CommandResult {
    if args.pending {
        return embed_pending(project, paths);
    }
    let mut memory = Memory::open(project.root(), paths, false)?;
    let bar = out.stderr_tty.then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "embedding {bar:30} {pos}/{len} items ({per_sec}, {eta} left)",
            )
            .expect("valid template"),
        );
        bar
    });
    let started = Instant::now();
    let result = memory.reindex(&|done, total| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let stats = result?;
    let secs = started.elapsed().as_secs_f64();
    for w in &stats.warnings {
        out.note(&format!("warning: {w}"));
    }
    print_notices(&mut memory, out);
    let embeddings = match memory.availability() {
        Availability::Ready { model, .. } => model.clone(),
        Availability::Missing { reason, .. } => format!("none, lexical-only ({reason})"),
    };
    if args.json {
        let report = json!({
            "items": stats.items_added,
            "files": stats.files_changed,
            "embedded": stats.items_embedded,
            "seconds": secs,
            "embeddings": embeddings,
            "warnings": stats.warnings,
        });
        out.print(&report.to_string());
    } else {
        let rate = if secs > 0.0 {
            stats.items_added as f64 / secs
        } else {
            0.0
        };
        out.print(&format!(
            "indexed {} items from {} files in {:.2} s ({:.0} items/s); embeddings: {embeddings}",
            stats.items_added, stats.files_changed, secs, rate
        ));
    }
    Ok(Exit::Success)
}

pub(super) fn status(
    project: &Project,
    paths: &SearchPaths,
    args: JsonFlag,
    out: &mut Output,
) -> CommandResult {
    let memory = open(project, paths, false, out)?;
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
    let stale = format!("{}", status.stale_items);
    let stale = match status.stale_items {
        0 => stale,
        _ => out.paint(Style::Warn, &stale),
    };
    out.print(&format!(
        "stale        {stale} (not injected; see `thehook review`)"
    ));
    let failed = format!("{}", status.failed_captures);
    let failed = if status.failed_captures > 0 {
        out.paint(Style::Warn, &failed)
    } else {
        failed
    };
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

pub(super) fn remember(
    project: &Project,
    paths: &SearchPaths,
    args: RememberArgs,
    out: &mut Output,
) -> CommandResult {
    let request = RememberRequest::new(args.text, args.kind)?;
    let item = open(project, paths, true, out)?.remember(&request)?;
    if args.json {
        out.print(&serde_json::to_string(&item).expect("json"));
    } else {
        out.print(&format!(
            "remembered {} at {}",
            item.id,
            out.paint(Style::Path, &item.citation())
        ));
    }
    Ok(Exit::Success)
}

pub(super) fn forget(
    project: &Project,
    paths: &SearchPaths,
    args: ForgetArgs,
    out: &mut Output,
) -> CommandResult {
    let item = ItemRef::parse(&args.id)?;
    let item = open(project, paths, false, out)?.forget(&item)?;
    if args.json {
        out.print(&serde_json::to_string(&item).expect("json"));
    } else {
        print_done(out, "forgot", &item);
    }
    Ok(Exit::Success)
}

/// `<done> <id> (<path:line>): <text>`, what `forget` and `review` say.
pub(super) fn print_done(out: &mut Output, done: &str, item: &thehook_core::memory::item::Item) {
    out.print(&format!(
        "{done} {} ({}): {}",
        item.id,
        out.paint(Style::Path, &item.citation()),
        one_line(&item.text, 120)
    ));
}
