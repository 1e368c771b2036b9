//! `thehook forget`: an item taken out of its file and the index.

use thehook_core::model::SearchPaths;
use thehook_core::{ItemRef, Project};

use crate::args::ForgetArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::Output;

use super::memory::{open, print_done, print_notices, Opening};

pub(super) fn forget(
    project: &Project,
    paths: &SearchPaths,
    args: ForgetArgs,
    out: &mut Output,
) -> CommandResult {
    let item = ItemRef::parse(&args.id)?;
    let mut memory = open(project, paths, Opening::EXISTING, out)?;
    let item = memory.forget(&item)?;
    print_notices(&mut memory, out);
    if args.json {
        out.print(&serde_json::to_string(&item).expect("json"));
    } else {
        print_done(out, "forgot", &item);
    }
    Ok(Exit::Success)
}
