//! `thehook recall`: one query, or one a line from stdin.

use serde_json::json;
use thehook_core::memory::rank::fusion::{Hit, Mode};
use thehook_core::model::SearchPaths;
use thehook_core::{Error, Memory, Project, RecallOptions};

use crate::args::RecallArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::Output;
use crate::render::hits_text;

use super::memory::{open, print_notices, Opening};

pub(super) fn recall(
    project: &Project,
    paths: &SearchPaths,
    args: RecallArgs,
    out: &mut Output,
) -> CommandResult {
    let options = RecallOptions::try_from(&args)?;
    if args.stdin {
        let mut memory = open(project, paths, Opening::STAMPED, out).inspect_err(|e| {
            if matches!(e, Error::NoMemory { .. }) {
                // Machine readers still get well-formed (empty) answers.
                let lines = std::io::BufRead::lines(&mut *out.stdin).map_while(Result::ok);
                for q in lines.collect::<Vec<_>>() {
                    let empty = json!({ "query": q, "mode": options.mode(), "hits": [] });
                    out.print(&empty.to_string());
                }
            }
        })?;
        return recall_each_line(&mut memory, &options, out);
    }
    let query = args.query.unwrap_or_default();
    let embed_now = (options.mode() != Mode::Lexical).then_some(query.as_str());
    let mut memory = match open(
        project,
        paths,
        Opening {
            query: embed_now,
            ..Opening::STAMPED
        },
        out,
    ) {
        Ok(m) => m,
        Err(e @ Error::NoMemory { .. }) if args.json => {
            // Machine readers still get a well-formed (empty) answer.
            let empty = json!({ "query": query, "mode": options.mode(), "hits": [] });
            out.print(&empty.to_string());
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    let result = options
        .request(query.as_str())
        .and_then(|request| memory.recall(&request));
    print_notices(&mut memory, out);
    let hits = result?;
    let mode = memory.mode_for(options.mode());
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

/// `recall --stdin`: one query per input line, one JSON line per answer.
fn recall_each_line(
    memory: &mut Memory,
    options: &RecallOptions,
    out: &mut Output,
) -> CommandResult {
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
                    source: None,
                    fix: "send UTF-8 text, one query per line".into(),
                })
            }
        }
        let query = line.trim_end_matches(['\n', '\r']);
        let result = options
            .request(query)
            .and_then(|request| memory.recall(&request));
        print_notices(memory, out);
        let mode = memory.mode_for(options.mode());
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
    Ok(Exit::found(any))
}

fn print_hits(out: &mut Output, hits: &[Hit]) {
    let text = hits_text(hits, &|style, s| out.paint(style, s));
    out.print(&text);
}

/// The flags, converted once and checked by the core.
impl TryFrom<&RecallArgs> for RecallOptions {
    type Error = Error;
    fn try_from(args: &RecallArgs) -> Result<RecallOptions, Error> {
        RecallOptions::checked(
            args.k,
            args.types.clone(),
            args.since,
            args.mode.unwrap_or_default(),
        )
    }
}
