//! One function per command: parse nothing (clap did), call the core, print.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use thehook_core::doctor::{doctor, Level};
use thehook_core::embed::{Availability, SearchPaths};
use thehook_core::index::Filter;
use thehook_core::search::{Hit, Mode};
use thehook_core::{Error, ItemKind, Memory, Project, RecallOptions};

use crate::output::{Output, Style};
use crate::{exit, Cli, Command, ForgetArgs, JsonFlag, RecallArgs, RememberArgs};

pub fn dispatch(cli: Cli, out: &mut Output) -> i32 {
    let start = cli
        .project_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    let project = Project::discover(&start);
    let paths = SearchPaths::from_env();
    let code = match cli.command {
        Command::Recall(args) => recall(&project, &paths, args, out),
        Command::Reindex(args) => reindex(&project, &paths, args, out),
        Command::Status(args) => status(&project, &paths, args, out),
        Command::Remember(args) => remember(&project, &paths, args, out),
        Command::Forget(args) => forget(&project, &paths, args, out),
        Command::Doctor(args) => run_doctor(&project, &paths, args, out),
        Command::Init(args) => crate::setup::init(&start, args, out),
        Command::Uninstall(args) => crate::setup::uninstall(&start, args, out),
        Command::Retrieve(args) => crate::hooks::retrieve(&start, &paths, args, out),
        Command::Capture(args) if args.worker => crate::capture::worker(&start, &paths),
        Command::Capture(args) if args.retry || args.transcript.is_some() => {
            crate::capture::by_hand(&project, &paths, args, out)
        }
        Command::Capture(args) => crate::hooks::capture(&start, args.hook, out),
        Command::Consolidate(args) => crate::capture::consolidate(&project, &paths, args, out),
        Command::Sessions(args) => crate::browse::sessions(&project, args, out),
        Command::Read(args) => crate::browse::read(&project, args, out),
        Command::Mcp => crate::mcp::serve(start, paths, out),
    };
    out.flush();
    code
}

/// Prints an error and returns its exit code: 1 when there is simply nothing
/// to find, 2 for everything the user has to fix.
pub(crate) fn fail(out: &mut Output, e: &Error) -> i32 {
    let label = out.paint(Style::Bad, "error:");
    out.err(&format!("{label} {e}"));
    match e {
        Error::NoMemory { .. } | Error::ItemNotFound { .. } | Error::SessionNotFound { .. } => {
            exit::NOTHING_FOUND
        }
        _ => exit::USAGE,
    }
}

/// Opens the project's memory and syncs it, reporting a rebuild and any
/// warnings about the markdown on stderr.
fn open(
    project: &Project,
    paths: &SearchPaths,
    create: bool,
    out: &mut Output,
) -> Result<Memory, Error> {
    let mut memory = Memory::open(project.root(), paths, create)?;
    for w in memory.config_warnings() {
        out.note(&format!("warning: {w}"));
    }
    if let Some(why) = memory.rebuilt_reason() {
        out.note(&format!("rebuilding the index from markdown: {why}"));
    }
    let stats = memory.sync(&|_, _| {})?;
    for w in &stats.warnings {
        out.note(&format!("warning: {w}"));
    }
    print_notices(&mut memory, out);
    Ok(memory)
}

fn print_notices(memory: &mut Memory, out: &mut Output) {
    for notice in memory.take_notices() {
        out.note(&format!("warning: {notice}"));
    }
}

fn recall(project: &Project, paths: &SearchPaths, args: RecallArgs, out: &mut Output) -> i32 {
    let options = RecallOptions {
        k: args.k as usize,
        filter: Filter {
            kinds: args.types.clone(),
            since: args.since,
        },
        mode: Mode::parse(&args.mode).unwrap_or_default(),
        lexical_weight: std::env::var("THEHOOK_LEXICAL_WEIGHT")
            .ok()
            .and_then(|w| w.parse().ok())
            .unwrap_or(thehook_core::search::LEXICAL_WEIGHT),
    };
    let mut memory = match open(project, paths, false, out) {
        Ok(m) => m,
        Err(e @ Error::NoMemory { .. }) if args.json || args.stdin => {
            // Machine readers still get well-formed (empty) answers.
            let queries: Vec<String> = match args.stdin {
                true => std::io::BufRead::lines(&mut *out.stdin)
                    .map_while(Result::ok)
                    .collect(),
                false => vec![args.query.clone().unwrap_or_default()],
            };
            for q in queries {
                out.print(&json!({ "query": q, "mode": args.mode, "hits": [] }).to_string());
            }
            return fail(out, &e);
        }
        Err(e) => return fail(out, &e),
    };
    if args.stdin {
        let mut any = false;
        let mut line = String::new();
        loop {
            line.clear();
            match out.stdin.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    out.note(&format!(
                        "error: cannot read stdin: {e} (send UTF-8 text, one query per line)"
                    ));
                    return exit::USAGE;
                }
            }
            let query = line.trim_end_matches(['\n', '\r']).to_string();
            let result = memory.recall(&query, &options);
            print_notices(&mut memory, out);
            let mode = effective_mode(&memory, options.mode);
            let answer = match result {
                Ok(hits) => {
                    any |= !hits.is_empty();
                    json!({ "query": query, "mode": mode, "hits": hits })
                }
                Err(e) => {
                    json!({ "query": query, "mode": mode, "hits": [], "error": e.to_string() })
                }
            };
            out.print(&answer.to_string());
            let _ = out.stdout.flush();
        }
        return if any {
            exit::SUCCESS
        } else {
            exit::NOTHING_FOUND
        };
    }
    let query = args.query.unwrap_or_default();
    let result = memory.recall(&query, &options);
    print_notices(&mut memory, out);
    let hits = match result {
        Ok(h) => h,
        Err(e) => return fail(out, &e),
    };
    let mode = effective_mode(&memory, options.mode);
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
    if hits.is_empty() {
        exit::NOTHING_FOUND
    } else {
        exit::SUCCESS
    }
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

/// Hits as `recall` prints them: citation, type, date and id, then the text.
/// `paint` styles the parts (the terminal's colors, or none).
pub(crate) fn hits_text(hits: &[Hit], paint: &dyn Fn(Style, &str) -> String) -> String {
    let mut lines = Vec::new();
    for hit in hits {
        let item = &hit.item;
        let date = item.date.get(..10).unwrap_or(&item.date);
        lines.push(format!(
            "{}  {}  {}  {}",
            paint(Style::Path, &hit.citation),
            paint(Style::Kind, item.kind.as_str()),
            paint(Style::Dim, date),
            paint(Style::Dim, &item.id),
        ));
        lines.push(format!("  {}", one_line(&item.text, 400)));
        if !hit.duplicates.is_empty() {
            lines.push(paint(
                Style::Dim,
                &format!("  also at {}", hit.duplicates.join(", ")),
            ));
        }
    }
    lines.join("\n")
}

/// Whitespace collapsed and cut at `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn reindex(project: &Project, paths: &SearchPaths, args: JsonFlag, out: &mut Output) -> i32 {
    let mut memory = match Memory::open(project.root(), paths, false) {
        Ok(m) => m,
        Err(e) => return fail(out, &e),
    };
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
    let stats = match result {
        Ok(s) => s,
        Err(e) => return fail(out, &e),
    };
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
    exit::SUCCESS
}

fn status(project: &Project, paths: &SearchPaths, args: JsonFlag, out: &mut Output) -> i32 {
    let memory = match open(project, paths, false, out) {
        Ok(m) => m,
        Err(e) => return fail(out, &e),
    };
    let status = match memory.status() {
        Ok(s) => s,
        Err(e) => return fail(out, &e),
    };
    if args.json {
        out.print(&serde_json::to_string_pretty(&status).expect("json"));
        return exit::SUCCESS;
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
    match &status.embeddings {
        Availability::Ready {
            model, model_dir, ..
        } => out.print(&format!(
            "embeddings   {model} from {} ({})",
            model_dir.path.display(),
            model_dir.source
        )),
        Availability::Missing { reason, fix } => {
            let line = out.paint(Style::Warn, &format!("lexical-only: {reason}"));
            out.print(&format!("embeddings   {line}\n             fix: {fix}"));
        }
    }
    exit::SUCCESS
}

fn remember(project: &Project, paths: &SearchPaths, args: RememberArgs, out: &mut Output) -> i32 {
    let kind = ItemKind::parse(&args.kind).unwrap_or(ItemKind::Note);
    let result = open(project, paths, true, out).and_then(|mut m| m.remember(&args.text, kind));
    match result {
        Ok(item) => {
            if args.json {
                out.print(&serde_json::to_string(&item).expect("json"));
            } else {
                out.print(&format!(
                    "remembered {} at {}",
                    item.id,
                    out.paint(Style::Path, &item.citation())
                ));
            }
            exit::SUCCESS
        }
        Err(e) => fail(out, &e),
    }
}

fn forget(project: &Project, paths: &SearchPaths, args: ForgetArgs, out: &mut Output) -> i32 {
    let result = open(project, paths, false, out).and_then(|mut m| m.forget(&args.id));
    match result {
        Ok(item) => {
            if args.json {
                out.print(&serde_json::to_string(&item).expect("json"));
            } else {
                out.print(&format!(
                    "forgot {} ({}): {}",
                    item.id,
                    out.paint(Style::Path, &item.citation()),
                    one_line(&item.text, 120)
                ));
            }
            exit::SUCCESS
        }
        Err(e) => fail(out, &e),
    }
}

fn run_doctor(project: &Project, paths: &SearchPaths, args: JsonFlag, out: &mut Output) -> i32 {
    let checks = doctor(project.root(), paths);
    let worst = checks
        .iter()
        .map(|c| c.level)
        .fold(Level::Ok, |a, b| match (a, b) {
            (Level::Error, _) | (_, Level::Error) => Level::Error,
            (Level::Warn, _) | (_, Level::Warn) => Level::Warn,
            _ => Level::Ok,
        });
    if args.json {
        out.print(&serde_json::to_string_pretty(&checks).expect("json"));
    } else {
        for c in &checks {
            let mark = match c.level {
                Level::Ok => out.paint(Style::Good, "ok  "),
                Level::Warn => out.paint(Style::Warn, "warn"),
                Level::Error => out.paint(Style::Bad, "FAIL"),
            };
            out.print(&format!("{mark} {:<13} {}", c.name, c.detail));
            if let Some(fix) = &c.fix {
                out.print(&format!("     {:<13} fix: {fix}", ""));
            }
        }
    }
    // Warnings (lexical-only, no hooks yet) are a working install.
    if worst == Level::Error {
        exit::USAGE
    } else {
        exit::SUCCESS
    }
}
