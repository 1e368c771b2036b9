//! `thehook consolidate`: the sessions not yet merged into `knowledge/`.

use serde_json::json;
use thehook_core::capture::consolidate as merge;
use thehook_core::model::SearchPaths;
use thehook_core::Project;

use crate::args::JsonFlag;
use crate::exit::{CommandResult, Exit};
use crate::output::Output;

use super::capture::with_worker;

pub(super) fn consolidate(
    project: &Project,
    paths: &SearchPaths,
    args: JsonFlag,
    out: &mut Output,
) -> CommandResult {
    let done = with_worker(project, paths, out, |w| {
        let result = merge::consolidate(w);
        if let Err(e) = &result {
            w.log(&format!("consolidation failed: {e}"));
        }
        result
    })?;
    if args.json {
        let answer = json!({ "consolidated": done });
        out.print(&serde_json::to_string_pretty(&answer).unwrap_or_default());
    } else {
        match done {
            None => out.print("no session waits for consolidation"),
            Some(c) => {
                out.print(&format!(
                    "consolidated {} session(s) into .thehook/knowledge/ ({} items before, {} after)",
                    c.sessions, c.items_before, c.items_after
                ));
                if let Some(why) = &c.not_indexed {
                    out.note(&format!("warning: written but not indexed yet: {why}"));
                }
            }
        }
    }
    Ok(Exit::Success)
}
