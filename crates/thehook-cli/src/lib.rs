//! The `thehook` command line: clap's parser ([`args`]) mapped onto the
//! core's front door, and the answers rendered ([`render`]). Each command
//! returns `Result<Exit, Error>`; [`run`] is the one place that prints an
//! error and turns it into an exit code.
//!
//! # What the CLI never does
//!
//! - It decides nothing about memory: each command maps its flags onto the
//!   core's front door (`thehook_core::front_door`), calls the core and
//!   renders the answer. Defaults, limits and accepted names are the
//!   core's.
//! - A hook command never exits non-zero and never prints anything but the
//!   agent's JSON on stdout, even on a usage error ([`clap_error`]).
//! - It never panics on bad input: every error leaves through [`run`].

mod args;
mod commands;
mod exit;
mod mcp;
mod output;
mod render;
mod ui;

use std::ffi::OsString;

use clap::Parser;

pub use args::{Cli, Command};
pub use exit::Exit;
pub use output::Output;

/// Parses `args` (program name first) and runs the command, writing to `out`.
/// Returns the process exit code; never panics on bad input.
pub fn run<I, T>(args: I, out: &mut Output) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return clap_error(&args, e, out) as i32,
    };
    let result = commands::dispatch(cli, out);
    let code = match result {
        Ok(exit) => exit,
        Err(e) => {
            let label = out.paint(output::Style::Bad, "error:");
            out.err(&format!("{label} {e}"));
            Exit::of(&e)
        }
    };
    out.flush();
    code as i32
}

/// Help and version go to stdout (exit 0); a usage error to stderr (exit 2),
/// except in a hook: a hook written by another version of thehook must
/// still exit 0 and print nothing, or the agent shows the error to the user.
fn clap_error(args: &[OsString], e: clap::Error, out: &mut Output) -> Exit {
    if e.use_stderr() && commands::hooks::is_hook_invocation(args) {
        return Exit::Success;
    }
    let rendered = if out.color {
        e.render().ansi().to_string()
    } else {
        e.render().to_string()
    };
    if e.use_stderr() {
        out.err(&rendered);
        Exit::Usage
    } else {
        out.print(&rendered);
        Exit::Success
    }
}
