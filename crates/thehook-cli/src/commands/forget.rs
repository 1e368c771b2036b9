//! `thehook forget`: an item taken out of its file and the index.

use thehook_core::memory::embed::SearchPaths;
use thehook_core::{ItemRef, Project};

use crate::args::ForgetArgs;
use crate::output::Output;
use crate::{CommandResult, Exit};

use super::memory::{open, print_done};

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
