//! `thehook mcp`: a stdio MCP server (the official `rmcp` SDK) so agents can
//! search memory and their own past sessions mid-task. Tools: `recall`,
//! `remember`, `sessions`, `read`, and `forget` when `mcp.allow_forget` is
//! set in the config. The index and the embedding model are opened on the
//! first call that needs them and stay warm for the session.
//!
//! stdout carries protocol frames only; notes go to stderr.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use thehook_core::browse::{self, ListOptions, ReadOptions};
use thehook_core::error::Words;
use thehook_core::help;
use thehook_core::memory::shared::with_memory;
use thehook_core::memory::Refresh;
use thehook_core::model::SearchPaths;
use thehook_core::text::safety;
use thehook_core::{env, Error, ItemRef, Memory, Project, RecallOptions, RememberRequest};

use crate::exit::{CommandResult, Exit};
use crate::output::Output;
use crate::render::hits_text;

const STORES: &str = "the agents' transcript stores";

/// Longest tool answer, in characters (about 6,000 tokens): Claude Code warns
/// past 10,000 tokens of MCP output. Longer answers are cut on a line
/// boundary with a note that says how to ask for less.
pub(crate) const MAX_ANSWER_CHARS: usize = 24_000;

const INSTRUCTIONS: &str = "thehook is this project's long-term memory: conventions, architecture decisions, gotchas and summaries of past sessions, and the raw transcripts of past agent sessions. Use `recall` before planning or when something looks like it was decided or debugged before; use `sessions` then `read` (compact first, then the lines you need in full) to see what happened in a past session. Cite what you use as path:line or session:line.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RecallParams {
    /// What to look for, in words.
    pub query: String,
    #[schemars(description = help::k())]
    pub k: Option<i64>,
    #[schemars(description = format!("Only items of this type: {}.", help::kinds()))]
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[schemars(description = help::since("items dated"))]
    pub since: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RememberParams {
    /// The fact, phrased as a fact ("Tests live in __tests__/").
    pub text: String,
    #[schemars(description = format!("{}.", help::rememberable_kinds_and_default()))]
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SessionsParams {
    #[schemars(description = format!("Only this agent's sessions: {}.", help::agent_names()))]
    pub agent: Option<String>,
    #[schemars(description = help::since("sessions active"))]
    pub since: Option<String>,
    #[schemars(description = help::session_limit())]
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReadParams {
    /// The session: the start of its id as `sessions` lists it (agent-<id> for a subagent).
    pub id: String,
    /// Lines to show in full: "5", "5-10" or "1,5,10-15". Omit for every line, compact.
    pub lines: Option<String>,
    /// Every line in full (thinking, tool inputs and results).
    pub full: Option<bool>,
    /// Only lines whose full text matches this regular expression.
    pub grep: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ForgetParams {
    #[schemars(description = help::item_id("recall"))]
    pub item_id: String,
}

/// What the tools share: where the project is. Its memory is opened on
/// the first call that needs it and kept (`thehook_core::memory::shared`).
struct State {
    start: PathBuf,
    paths: SearchPaths,
}

impl State {
    fn project(&self) -> Project {
        Project::discover(&self.start)
    }

    fn with_memory<T>(
        &self,
        create: bool,
        refresh: Refresh,
        f: impl FnOnce(&mut Memory) -> Result<T, Error>,
    ) -> Result<T, Error> {
        with_memory(&self.start, &self.paths, create, refresh, f)
    }
}

#[derive(Clone)]
pub(crate) struct Server {
    state: Arc<State>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Server {
    fn new(start: PathBuf, paths: SearchPaths, allow_forget: bool) -> Server {
        let mut tool_router = Self::tool_router();
        if !allow_forget {
            tool_router.remove_route("forget");
        }
        Server {
            state: Arc::new(State { start, paths }),
            tool_router,
        }
    }

    /// Runs blocking work (LMDB, ONNX, file reads) off the protocol's thread.
    async fn answer(
        &self,
        work: impl FnOnce(&State) -> Result<String, Error> + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let state = self.state.clone();
        let done = tokio::task::spawn_blocking(move || work(&state)).await;
        Ok(match done {
            Ok(Ok(text)) => {
                CallToolResult::success(vec![ContentBlock::text(limit(&text, MAX_ANSWER_CHARS))])
            }
            Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(
                e.in_words_of(Words::Mcp).to_string(),
            )]),
            // A panic in the core: an error answer, and the server goes on.
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                "internal error: {e}; please report it"
            ))]),
        })
    }

    #[tool(
        description = "Search this project's memory (conventions, decisions, gotchas, session summaries, notes). Returns items with path:line citations and ids."
    )]
    async fn recall(
        &self,
        Parameters(p): Parameters<RecallParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |state| {
            let types: Vec<String> = p.kind.into_iter().collect();
            let request = RecallOptions::parse(p.k, &types, p.since.as_deref(), None)?
                .for_agents()
                .request(p.query)?;
            let answer =
                state.with_memory(false, Refresh::Stamped, |m| m.recall_answer(&request))?;
            // What went wrong but was worked around (keywords only, an index
            // rebuilt): thehook's own words, set apart from memory's.
            let notices: String = answer
                .notices
                .iter()
                .map(|n| format!("\n\nthehook notice (about this search, not memory): {n}"))
                .collect();
            if answer.hits.is_empty() {
                return Ok(format!(
                    "nothing in memory matches {:?}{notices}",
                    request.query()
                ));
            }
            let text = hits_text(&answer.hits, &|_, s| s.to_string());
            Ok(format!(
                "{}\n{text}{notices}",
                thehook_core::text::MEMORY_IS_DATA
            ))
        })
        .await
    }

    #[tool(
        description = "Add a fact to this project's memory (.thehook/knowledge/notes.md) so later sessions know it."
    )]
    async fn remember(
        &self,
        Parameters(p): Parameters<RememberParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |state| {
            let request = RememberRequest::parse(p.text, p.kind.as_deref())?;
            let item = state.with_memory(true, Refresh::EveryFile, |m| m.remember(&request))?;
            Ok(format!(
                "remembered {} as {} ({})",
                item.id,
                item.kind.as_str(),
                item.citation()
            ))
        })
        .await
    }

    #[tool(
        description = format!("{} Subagents are indented.", help::sessions())
    )]
    async fn sessions(
        &self,
        Parameters(p): Parameters<SessionsParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |state| {
            let home = env::require_home(STORES)?;
            let options = ListOptions::parse(p.agent.as_deref(), p.since.as_deref(), p.limit)?;
            let listing = browse::list(&state.project(), &home, &options);
            if listing.sessions.is_empty() {
                return Ok("no past sessions of this project were found".into());
            }
            Ok(safety::guard_lines(&browse::render_listing(&listing)))
        })
        .await
    }

    #[tool(
        description = "Read a past session: without `lines`, every line compact (one line each, tool calls merged with their results); with `lines` (\"5\", \"5-10\", \"1,5,10-15\") or `full`, those lines whole. `grep` keeps matching lines. Secrets are redacted."
    )]
    async fn read(
        &self,
        Parameters(p): Parameters<ReadParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |state| {
            let home = env::require_home(STORES)?;
            let options = ReadOptions::parse(
                p.lines.as_deref(),
                p.full.unwrap_or(false),
                p.grep.as_deref(),
            )?;
            let source = browse::find(&state.project(), &home, &p.id, false)?;
            let reading = browse::read(&browse::open(&source)?, &options);
            Ok(safety::guard_lines(&reading.text))
        })
        .await
    }

    #[tool(
        description = "Delete one item from this project's memory (its markdown line and the index), by the id `recall` shows."
    )]
    async fn forget(
        &self,
        Parameters(p): Parameters<ForgetParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(move |state| {
            let item = ItemRef::parse(&p.item_id)?;
            let item = state.with_memory(false, Refresh::EveryFile, |m| m.forget(&item))?;
            Ok(format!(
                "forgot {} ({}): {}",
                item.id,
                item.citation(),
                item.text
            ))
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("thehook", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// `text`, or its first lines up to `max` characters and a note saying how
/// much was left out and how to ask for less.
pub(crate) fn limit(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let mut cut = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    if let Some(newline) = text[..cut].rfind('\n') {
        cut = newline;
    }
    let shown = text[..cut].chars().count();
    format!(
        "{}\n[truncated: {shown} of {total} characters shown (limit {max}); ask for fewer lines, use grep, or lower k]",
        &text[..cut]
    )
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub(crate) fn serve(start: PathBuf, paths: SearchPaths, out: &mut Output) -> CommandResult {
    // The protocol reads stdin itself: let go of the lock `Output` holds on it.
    out.stdin = Box::new(std::io::empty());
    let config_path = Project::discover(&start).config_path();
    let allow_forget = thehook_core::config::Config::load(&config_path)?
        .config
        .mcp
        .allow_forget;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            out.note(&format!("error: cannot start the MCP server: {e}"));
            return Ok(Exit::Usage);
        }
    };
    let server = Server::new(start, paths, allow_forget);
    let result = runtime.block_on(async {
        let service = server.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    });
    // stdin is read on a blocking thread that cannot be cancelled.
    runtime.shutdown_background();
    match result {
        Ok(()) => Ok(Exit::Success),
        Err(e) => {
            out.note(&format!("error: MCP session ended: {e}"));
            Ok(Exit::Usage)
        }
    }
}
