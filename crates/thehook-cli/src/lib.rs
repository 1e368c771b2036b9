//! The `thehook` command line: a clap parser and the commands over
//! `thehook-core`. A library so the Node addon can run the same parser
//! in-process (`cli(argv)`).

mod browse;
mod capture;
mod commands;
mod hooks;
mod mcp;
mod output;
mod setup;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use output::Output;

/// Exit codes (DESIGN section 4).
pub mod exit {
    pub const SUCCESS: i32 = 0;
    pub const NOTHING_FOUND: i32 = 1;
    pub const USAGE: i32 = 2;
}

/// Long-term memory for AI coding agents.
#[derive(Debug, Parser)]
#[command(name = "thehook", version, about, max_term_width = 100)]
pub struct Cli {
    /// Run as if started in DIR (the project is found from there, like git).
    #[arg(short = 'C', long = "project-dir", value_name = "DIR", global = true)]
    pub project_dir: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Search memory: BM25 and vector search fused, with `path:line` citations.
    Recall(RecallArgs),
    /// Rebuild the index from the markdown under .thehook/.
    Reindex(JsonFlag),
    /// Show sessions, items, failed captures, index health and the model in use.
    Status(JsonFlag),
    /// Add a fact to .thehook/knowledge/notes.md and index it.
    Remember(RememberArgs),
    /// Remove an item from its markdown file and from the index.
    Forget(ForgetArgs),
    /// Check the install (model, ONNX Runtime, index, permissions, hooks) and print fixes.
    Doctor(JsonFlag),
    /// Set up memory here and wire thehook into your agents' session hooks.
    Init(InitArgs),
    /// Remove exactly the hooks and commands `init` added (memory is kept).
    Uninstall(UninstallArgs),
    /// Session-start hook: reads the agent's payload on stdin, prints the memory to inject.
    Retrieve(HookArgs),
    /// Session-end hook: queues the session and starts the capture worker.
    /// By hand: `--retry` redoes failed captures, `--transcript PATH` captures a file.
    Capture(CaptureArgs),
    /// Merge the sessions not yet consolidated into knowledge/ through the LLM.
    Consolidate(JsonFlag),
    /// List this project's past sessions (Claude Code, Cursor, Codex), newest first:
    /// `<id> <start> <lines> <summary>`.
    Sessions(SessionsArgs),
    /// Show a past session: every line compact, or the lines asked for in full.
    Read(ReadArgs),
    /// Serve memory and past sessions to agents over MCP (stdio): recall, remember,
    /// sessions, read (and forget when `mcp.allow_forget` is set).
    Mcp,
}

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Only this agent's sessions: claude, cursor, codex.
    #[arg(long, value_parser = parse_agent)]
    pub agent: Option<thehook_core::agent::Agent>,
    /// Only sessions active on or after DATE: 2026-02-01, an RFC 3339 time, or 7d / 2w ago.
    #[arg(long, value_name = "DATE", value_parser = parse_since)]
    pub since: Option<jiff::Timestamp>,
    /// At most N sessions (0: all).
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub limit: usize,
    /// Print JSON (format in the README).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The session: the start of its id as `thehook sessions` prints it
    /// (`agent-<id>` for a subagent), or a transcript file.
    pub id: String,
    /// Lines to show in full: 5, 5-10 or 1,5,10-15. Without: every line, compact.
    pub lines: Option<String>,
    /// Every line in full (thinking, tool inputs and results).
    #[arg(long)]
    pub full: bool,
    /// Only lines whose full text matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub grep: Option<String>,
}

#[derive(Debug, Args)]
pub struct CaptureArgs {
    #[command(flatten)]
    pub hook: HookArgs,
    /// Capture every queued session now (what the hook starts in the background).
    #[arg(long, conflicts_with_all = ["retry", "transcript"])]
    pub worker: bool,
    /// Capture again the sessions in .thehook/failed/.
    #[arg(long, conflicts_with = "transcript")]
    pub retry: bool,
    /// Capture this transcript file (Claude Code, Cursor, Codex or Gemini CLI).
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// Print JSON (with --retry or --transcript).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Agents to wire (comma-separated): claude, cursor, codex, gemini.
    /// Default: those whose folder or program is present, else Claude Code.
    #[arg(long = "agent", value_name = "AGENTS", value_delimiter = ',', value_parser = parse_agent)]
    pub agents: Vec<thehook_core::agent::Agent>,
    /// Write the user-level settings (~/.claude, ~/.cursor, ...) instead of the project's.
    #[arg(long)]
    pub global: bool,
    /// The thehook program hooks should run (default: the one on PATH).
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
    /// Also register the MCP server (`thehook mcp`) with each agent:
    /// .mcp.json, .cursor/mcp.json, .codex/config.toml, .gemini/settings.json.
    #[arg(long)]
    pub mcp: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Remove from the user-level settings instead of the project's.
    #[arg(long)]
    pub global: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent the hook was written for (the payload's shape can overrule it).
    #[arg(long, value_parser = parse_agent)]
    pub agent: Option<thehook_core::agent::Agent>,
    /// Internal: the detached second half of `retrieve`.
    #[arg(long, hide = true)]
    pub background: bool,
    /// Internal: the session that is starting (not swept).
    #[arg(long, hide = true)]
    pub session: Option<String>,
}

fn parse_agent(s: &str) -> Result<thehook_core::agent::Agent, String> {
    thehook_core::agent::Agent::parse(s)
        .ok_or_else(|| "expected one of: claude, cursor, codex, gemini".to_string())
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to look for. Omit with --stdin.
    #[arg(required_unless_present = "stdin")]
    pub query: Option<String>,
    /// How many results.
    #[arg(short, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub k: u16,
    /// Only items of this type (repeatable): summary, convention, adr, gotcha, history, note, text.
    #[arg(long = "type", value_name = "TYPE", value_parser = parse_kind)]
    pub types: Vec<thehook_core::ItemKind>,
    /// Only items dated on or after DATE: 2026-02-01, an RFC 3339 time, or 7d / 2w ago.
    #[arg(long, value_name = "DATE", value_parser = parse_since)]
    pub since: Option<jiff::Timestamp>,
    /// Print JSON (format in the README).
    #[arg(long)]
    pub json: bool,
    /// Read one query per line from stdin; print one JSON line per query.
    #[arg(long, conflicts_with = "query")]
    pub stdin: bool,
    /// Retrievers to use.
    #[arg(long, default_value = "hybrid", value_parser = ["hybrid", "lexical", "vector"])]
    pub mode: String,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The fact, phrased as a fact ("Tests live in __tests__/").
    pub text: String,
    /// Its type.
    #[arg(long = "type", default_value = "note", value_parser = ["convention", "adr", "gotcha", "note"])]
    pub kind: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// The item's id as `recall` prints it (a unique prefix of 4+ characters is enough).
    pub id: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The user's home folder, where user-level agent settings and transcripts live.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn parse_kind(s: &str) -> Result<thehook_core::ItemKind, String> {
    thehook_core::ItemKind::parse(s).ok_or_else(|| {
        "expected one of: summary, convention, adr, gotcha, history, note, text".to_string()
    })
}

pub(crate) fn parse_since(s: &str) -> Result<jiff::Timestamp, String> {
    const EXPECTED: &str = "expected a date such as 2026-02-01, an RFC 3339 time, or 7d / 2w";
    let s = s.trim();
    let relative = s
        .strip_suffix('d')
        .map(|n| (n, 24))
        .or_else(|| s.strip_suffix('w').map(|n| (n, 24 * 7)));
    if let Some((n, hours_per_unit)) = relative {
        if let Ok(n) = n.parse::<i64>() {
            return n
                .checked_mul(hours_per_unit)
                .and_then(|h| jiff::Span::new().try_hours(h).ok())
                .and_then(|span| jiff::Timestamp::now().checked_sub(span).ok())
                .ok_or_else(|| format!("{s} reaches before the earliest date thehook handles"));
        }
    }
    thehook_core::store::parse_date(s)
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| EXPECTED.to_string())
}

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
        // A hook written by another version of thehook must still exit 0
        // and print nothing: the agent would show the error to the user.
        Err(_) if hooks::is_hook_invocation(&args) => return exit::SUCCESS,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            };
            let rendered = if out.color {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            if e.use_stderr() {
                out.err(&rendered);
            } else {
                out.print(&rendered);
            }
            return code;
        }
    };
    commands::dispatch(cli, out)
}
