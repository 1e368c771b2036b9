//! `thehook sessions`: the agents' past sessions of this project.

use thehook_core::browse::{self, ListOptions};
use thehook_core::{env, help, Project};

use crate::args::SessionsArgs;
use crate::exit::{CommandResult, Exit};
use crate::output::Output;

pub(super) const STORES: &str = "the agents' transcript stores";

pub(super) fn sessions(project: &Project, args: SessionsArgs, out: &mut Output) -> CommandResult {
    let home = env::require_home(STORES)?;
    let options = ListOptions::new(args.agent, args.since, args.limit);
    let listing = browse::list(project, &home, &options);
    for why in &listing.unreadable {
        out.note(&format!("skipped: {why}"));
    }
    if args.json {
        out.print(&serde_json::to_string_pretty(&listing).expect("json"));
    } else if !listing.sessions.is_empty() {
        out.print(&browse::render_listing(&listing));
    }
    if listing.sessions.is_empty() && !args.json {
        out.note(&format!(
            "no sessions of {} found in the {} transcript stores under {}",
            project.root().display(),
            help::agent_titles(),
            home.display()
        ));
    }
    Ok(Exit::found(!listing.sessions.is_empty()))
}
