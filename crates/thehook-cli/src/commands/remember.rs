//! `thehook remember`: a fact added to `knowledge/notes.md`.

use thehook_core::model::SearchPaths;
use thehook_core::{Project, RememberRequest};

use crate::args::RememberArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::{Output, Style};

use super::memory::{open, print_notices, Opening};

pub(super) fn remember(
    project: &Project,
    paths: &SearchPaths,
    args: RememberArgs,
    out: &mut Output,
) -> CommandResult {
    let request = RememberRequest::new(args.text, args.kind)?;
    let mut memory = open(
        project,
        paths,
        Opening {
            create: true,
            ..Opening::EXISTING
        },
        out,
    )?;
    let item = memory.remember(&request)?;
    print_notices(&mut memory, out);
    if args.json {
        out.print(&serde_json::to_string(&item).expect("json"));
    } else {
        out.print(&format!(
            "remembered {} at {}",
            item.id,
            out.paint(Style::Path, &item.citation())
        ));
        if let Some(w) = &item.withheld {
            out.print(&out.paint(
                Style::Warn,
                &format!(
                    "withheld from agents: {}: {}; `thehook review release {}` if it is safe",
                    w.rule,
                    w.rule.what(),
                    item.id
                ),
            ));
        }
    }
    Ok(Exit::Success)
}
