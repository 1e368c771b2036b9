//! The command line as clap parses it. Values are checked by the core's
//! parsers (`thehook_core::request`), so a flag accepts exactly what the
//! MCP tool and the Node option with the same name accept; defaults are
//! left to the core (`None` here means "the core's default").

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use thehook_core::agents::Agent;
use thehook_core::front_door::{parse_agent, parse_kind, parse_rememberable_kind, parse_since};
use thehook_core::help;
use thehook_core::memory::rank::fusion::Mode;
use thehook_core::ItemKind;

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
    Reindex(ReindexArgs),
    /// Show sessions, items, failed captures, index health and the model in use.
    Status(JsonFlag),
    /// Add a fact to .thehook/knowledge/notes.md and index it.
    Remember(RememberArgs),
    /// Remove an item from its markdown file and from the index.
    Forget(ForgetArgs),
    /// List what is withheld from agents (a safety rule broken) and what is stale (a cited path or symbol gone, a decision superseded); release, confirm, rewrite or forget one. With `--since REV`: what a range of commits (a pull request) adds to memory, item by item.
    Review(ReviewArgs),
    /// Check the install (model, ONNX Runtime, embedding cache, index, permissions, hooks) and print fixes.
    Doctor(JsonFlag),
    /// Set up memory here and wire thehook into your agents' session hooks.
    Init(InitArgs),
    /// Remove exactly the hooks and commands `init` added (memory is kept).
    Uninstall(UninstallArgs),
    /// Session-start hook: reads the agent's payload on stdin, prints the memory to inject.
    Retrieve(HookArgs),
    /// Prompt hook: reads the agent's payload on stdin, prints memory relevant to the
    /// prompt that the session was not given yet (nothing when nothing clears the floor).
    Prompt(HookArgs),
    /// File hook: reads the agent's payload for a tool call that reads or edits a file,
    /// prints what memory knows about that file that the session was not given yet.
    File(HookArgs),
    /// Subagent hook: reads the agent's payload when a subagent starts, prints what memory
    /// holds on its task (and, by its type, what a session start gives); for the tool call
    /// that starts one, keeps the task it hands over.
    Subagent(HookArgs),
    /// Session-end hook: queues the session and starts the capture worker.
    /// By hand: `--retry` redoes failed captures, `--transcript PATH` captures a file.
    Capture(CaptureArgs),
    /// Merge the sessions not yet consolidated into knowledge/ through the LLM.
    Consolidate(JsonFlag),
    #[command(about = help::sessions())]
    Sessions(SessionsArgs),
    /// Show a past session: every line compact, or the lines asked for in full.
    Read(ReadArgs),
    /// Serve memory and past sessions to agents over MCP (stdio): recall, remember,
    /// sessions, read (and forget when `mcp.allow_forget` is set).
    Mcp,
    /// Open a local page (127.0.0.1, with a token) of what memory holds, what each session
    /// was given and used, review with actions, the LLM bill and health. Ctrl-C stops it.
    Ui(UiArgs),
}

#[derive(Debug, Args)]
pub struct UiArgs {
    /// Listen on this port (default: a free one).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// Print the URL without opening the browser.
    #[arg(long)]
    pub no_open: bool,
}

#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[arg(long, value_parser = parse_agent, help = format!("Only this agent's sessions: {}.", help::agent_names()))]
    pub agent: Option<Agent>,
    #[arg(long, value_name = "DATE", value_parser = parse_since, help = help::since("sessions active"))]
    pub since: Option<jiff::Timestamp>,
    #[arg(long, value_name = "N", help = help::session_limit())]
    pub limit: Option<usize>,
    /// Print JSON (format in docs/capture.md).
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
    #[arg(long, value_name = "PATH", help = format!("Capture this transcript file ({}).", help::agent_titles()))]
    pub transcript: Option<PathBuf>,
    /// Print JSON (with --retry or --transcript).
    #[arg(long)]
    pub json: bool,
}

/// What a `capture` invocation is: an agent's session-end hook, the
/// detached worker it starts, or a person capturing by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureRole {
    Hook,
    Worker,
    ByHand,
}

impl CaptureRole {
    /// `--worker`, else `--retry` or `--transcript` (typed by a person), else the hook.
    pub fn of(worker: bool, retry: bool, transcript: bool) -> CaptureRole {
        if worker {
            CaptureRole::Worker
        } else if retry || transcript {
            CaptureRole::ByHand
        } else {
            CaptureRole::Hook
        }
    }
}

impl CaptureArgs {
    pub fn role(&self) -> CaptureRole {
        CaptureRole::of(self.worker, self.retry, self.transcript.is_some())
    }
}

#[derive(Debug, Args)]
pub struct InitArgs {
    #[arg(
        long = "agent",
        value_name = "AGENTS",
        value_delimiter = ',',
        value_parser = parse_agent,
        help = format!(
            "Agents to wire (comma-separated): {}. Default: those whose folder or program is present, else {}.",
            help::agent_names(),
            help::default_agent()
        )
    )]
    pub agents: Vec<Agent>,
    /// Write the user-level settings (~/.claude, ~/.cursor, ...) instead of the project's.
    #[arg(long)]
    pub global: bool,
    /// The thehook program hooks should run (default: the one on PATH).
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
    #[arg(long, help = format!(
        "Also register the MCP server (`thehook mcp`) with each agent: {}",
        help::mcp_files()
    ))]
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
    pub agent: Option<Agent>,
    /// Internal: the detached second half of `retrieve`.
    #[arg(long, hide = true)]
    pub background: bool,
    /// Internal: the session that is starting (not swept).
    #[arg(long, hide = true)]
    pub session: Option<String>,
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to look for. Omit with --stdin.
    #[arg(required_unless_present = "stdin")]
    pub query: Option<String>,
    #[arg(short, value_name = "N", help = help::k())]
    pub k: Option<i64>,
    #[arg(
        long = "type",
        value_name = "TYPE",
        value_parser = parse_kind,
        help = format!("Only items of this type (repeatable): {}.", help::kinds())
    )]
    pub types: Vec<ItemKind>,
    #[arg(long, value_name = "DATE", value_parser = parse_since, help = help::since("items dated"))]
    pub since: Option<jiff::Timestamp>,
    /// Print JSON (format in docs/search.md).
    #[arg(long)]
    pub json: bool,
    /// Read one query per line from stdin; print one JSON line per query.
    #[arg(long, conflicts_with = "query")]
    pub stdin: bool,
    /// Retrievers to use (default hybrid).
    #[arg(long, value_parser = mode_parser())]
    pub mode: Option<Mode>,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The fact, phrased as a fact ("Tests live in __tests__/").
    pub text: String,
    #[arg(
        long = "type",
        value_name = "TYPE",
        value_parser = parse_rememberable_kind,
        help = format!("Its type: {}.", help::rememberable_kinds_and_default())
    )]
    pub kind: Option<ItemKind>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub action: Option<ReviewAction>,
    /// Review what a range of commits adds under .thehook/: REV (what HEAD adds since it left REV, as a pull request's diff shows it) or BASE..HEAD. Memory is read as checked out: the range ends at HEAD.
    #[arg(long, value_name = "REV", conflicts_with = "action")]
    pub since: Option<String>,
    /// With --since: print the review as markdown (a pull request comment or a job summary).
    #[arg(long, requires = "since", conflicts_with = "json")]
    pub markdown: bool,
    /// With --since: exit 3 when the range adds anything withheld from agents or a secret (a CI gate).
    #[arg(long, requires = "since")]
    pub check: bool,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum ReviewAction {
    /// A withheld item or title is safe: agents are given it (recorded in this clone only, in .git/thehook/released.txt; never committed).
    Release {
        #[arg(help = help::item_id("review"))]
        id: String,
    },
    /// The item is still true: it stops being stale (recorded in .thehook/confirmed.txt).
    Confirm {
        #[arg(help = help::item_id("review"))]
        id: String,
    },
    /// Replace the item's text in its markdown file.
    Rewrite {
        #[arg(help = help::item_id("review"))]
        id: String,
        /// The new text.
        text: String,
    },
    /// Remove the item (or a withheld session title) from its markdown file and the index.
    Forget {
        #[arg(help = help::item_id("review"))]
        id: String,
    },
}

#[derive(Debug, Args)]
pub struct ForgetArgs {
    #[arg(help = help::item_id("recall"))]
    pub id: String,
    #[arg(long)]
    pub json: bool,
}

/// `--mode`: the core's modes, listed in `--help`.
fn mode_parser() -> impl TypedValueParser<Value = Mode> {
    PossibleValuesParser::new(Mode::ALL.map(Mode::as_str))
        .map(|name| Mode::parse(&name).expect("a listed mode"))
}

#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Internal: embed the items that wait for vectors (started detached by
    /// a command that answered before embedding a large pull), then exit.
    #[arg(long, hide = true)]
    pub pending: bool,
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
