//! `thehook recall`: one query, or one a line from stdin.

use serde_json::json;
use thehook_core::memory::embed::SearchPaths;
use thehook_core::memory::rank::fusion::{Hit, Mode};
use thehook_core::memory::Refresh;
use thehook_core::{Error, Memory, Project, RecallRequest};

use crate::args::RecallArgs;
use crate::output::Output;
use crate::render::hits_text;
use crate::{CommandResult, Exit};

use super::memory::{open_embedding, print_notices};

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
    let mut memory = match open_embedding(project, paths, false, embed_now, Refresh::Stamped, out) {
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
    let mode = memory.mode_for(request.mode);
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
                    source: None,
                    fix: "send UTF-8 text, one query per line".into(),
                })
            }
        }
        let request = base.with_query(line.trim_end_matches(['\n', '\r']));
        let result = memory.recall(&request);
        print_notices(memory, out);
        let mode = memory.mode_for(request.mode);
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

fn print_hits(out: &mut Output, hits: &[Hit]) {
    let text = hits_text(hits, &|style, s| out.paint(style, s));
    out.print(&text);
}
