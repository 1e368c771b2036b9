//! What thehook needs to know about an agent: its facts as one constant
//! [`Description`] (identity, hook protocol, installation, tools, distil
//! command), and what it does differently as a few small traits, one per
//! concern, which [`AgentSpec`] brings together.
//! Each agent's folder (`claude_code/`, `cursor/`, ...) holds both, and the
//! rest of the code asks [`Agent::spec`](super::Agent::spec) or
//! [`Agent::description`](super::Agent::description) instead of matching
//! on agents. The defaults are the common case (Claude Code's conventions,
//! which Codex and Gemini CLI copied).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::payload::{HookEvent, TouchedFile};
use super::shell::Shell;
use super::Agent;
use crate::process::llm_command::LlmCommand;
use crate::transcript::{NotATranscript, Record, ToolKind, Transcript};

/// Who an agent is: its names, where its settings are, how to spot it.
pub(crate) struct Identity {
    /// The name in session files and `--agent` (`claude-code`).
    pub(crate) name: &'static str,
    /// The name people type (`claude`).
    pub(crate) short_name: &'static str,
    /// The name in prose (`Claude Code`).
    pub(crate) display_name: &'static str,
    /// Other names accepted for it, lowercase.
    pub(crate) aliases: &'static [&'static str],
    /// The folder of its settings, in a project or in `$HOME`.
    pub(crate) folder: &'static str,
    /// The file (in `folder`) that holds its hooks.
    pub(crate) settings_file: &'static str,
    /// Programs whose presence on PATH says it is installed.
    pub(crate) binaries: &'static [&'static str],
}

/// An agent's CLI as the LLM that distils sessions (`llm.cli`).
pub(crate) struct DistillCli {
    /// Its value of `llm.cli` (`claude`, `cursor-agent`).
    pub(crate) name: &'static str,
    /// What to install to have it (`Claude Code`, `cursor-agent`).
    pub(crate) title: &'static str,
    /// The programs that run it, looked up on `PATH` in this order.
    pub(crate) programs: &'static [&'static str],
    /// Its one-shot command line: the program found, the name it was found
    /// by, and `llm.model`.
    pub(crate) command: fn(PathBuf, &str, Option<&str>) -> LlmCommand,
}

/// Everything thehook knows about an agent that is a fact, not behaviour:
/// one constant per agent, in its folder's `mod.rs`.
pub(crate) struct Description {
    pub(crate) identity: Identity,
    pub(crate) protocol: Protocol,
    pub(crate) install: Install,
    /// Its tools, by name, with what each does (for condensing and compact
    /// lines, and the default [`AgentSpec::touched_file`]).
    pub(crate) tools: &'static [(&'static str, ToolKind)],
    /// Its CLI as the LLM that distils sessions.
    pub(crate) distill: DistillCli,
    /// Whether it writes transcripts as JSON documents
    /// ([`AgentSpec::read_document`]).
    pub(crate) writes_documents: bool,
}

/// Its hook protocol: what its payloads say, what its hooks answer.
pub(crate) struct Protocol {
    /// How its session-start hook adds context.
    pub(crate) session_start: Output,
    /// How its prompt hook adds context to the model request.
    pub(crate) prompt: Output,
    /// How its tool hook adds context after the tool's result (else init
    /// wires no file hook for it).
    pub(crate) file: Output,
    /// How its subagent-start hook adds context to the subagent's first
    /// request (else init wires none: the agent has no such event).
    pub(crate) subagent: Output,
    /// Its session-start `source` words that `retrieval.inject_on` says
    /// otherwise: (its word, thehook's).
    pub(crate) sources: &'static [(&'static str, &'static str)],
    /// The payload field that names the subagent a tool call comes from,
    /// when it is not the main thread's.
    pub(crate) subagent_field: &'static str,
    /// The other agent whose hooks it runs too (sending its own payload to
    /// them), with its own event name for each of thehook's events.
    pub(crate) runs_hooks_of: Option<ForeignHooks>,
    /// The most tokens of injected context it passes on whole, if it cuts
    /// longer ones.
    pub(crate) context_token_cap: Option<usize>,
}

impl Protocol {
    /// Claude Code's, which Codex and Gemini CLI copied: `hookSpecificOutput`.
    pub(crate) const COMMON: Protocol = Protocol {
        session_start: Output::HookSpecific("SessionStart"),
        prompt: Output::HookSpecific("UserPromptSubmit"),
        file: Output::None,
        subagent: Output::None,
        sources: &[],
        subagent_field: "agent_id",
        runs_hooks_of: None,
        context_token_cap: None,
    };

    /// Its own name of thehook's `event` when it runs the hooks written
    /// for `other` agent's settings too; `None` when it runs none of them.
    pub(crate) fn event_running_hooks_of(
        &self,
        other: Agent,
        event: HookEvent,
    ) -> Option<&'static str> {
        let foreign = self.runs_hooks_of.as_ref().filter(|f| f.of == other)?;
        foreign
            .events
            .iter()
            .find(|(e, _)| *e == event)
            .map(|(_, name)| *name)
    }

    /// A payload's session-start `source` in the words of
    /// `retrieval.inject_on` (startup, resume, clear, compact).
    pub(crate) fn source_name<'a>(&self, source: &'a str) -> &'a str {
        match self.sources.iter().find(|(its, _)| *its == source) {
            Some((_, ours)) => ours,
            None => source,
        }
    }
}

/// How a hook's answer adds context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// `{"hookSpecificOutput": {"hookEventName": <event>,
    /// "additionalContext": ...}}` ([`hook_specific`]).
    HookSpecific(&'static str),
    /// `{<field>: ...}`.
    Field(&'static str),
    /// The hook cannot add context.
    None,
}

impl Output {
    /// The answer that adds `context`, if the hook can.
    pub(crate) fn with(self, context: &str) -> Option<Value> {
        match self {
            Output::HookSpecific(event) => Some(hook_specific(event, context)),
            Output::Field(field) => Some(json!({ field: context })),
            Output::None => None,
        }
    }

    pub(crate) fn adds_context(self) -> bool {
        self != Output::None
    }
}

/// Another agent's hooks that an agent runs too.
pub(crate) struct ForeignHooks {
    pub(crate) of: Agent,
    /// Its own event name for each of thehook's events it runs them on.
    pub(crate) events: &'static [(HookEvent, &'static str)],
}

/// How init installs thehook for it.
pub(crate) struct Install {
    /// The folder in `$HOME` that holds its user-level settings file,
    /// when it is not the one in a project (`identity.folder`).
    pub(crate) user_folder: Option<&'static str>,
    /// What, in a project (or `$HOME`), shows it is used there.
    pub(crate) used_if: &'static [Mark],
    /// Whether handlers sit in matcher groups (`{"matcher", "hooks":
    /// [...]}`) rather than directly under the event.
    pub(crate) nests_handlers: bool,
    /// The `version` a new settings file starts with, if the format has one.
    pub(crate) settings_version: Option<u64>,
    /// Whether its settings take permission rules that let the retrieval
    /// subagent run thehook's read-only commands unasked.
    pub(crate) takes_permission_rules: bool,
    /// The shell its hook commands run in on Windows (on macOS and Linux
    /// every agent runs them in a POSIX shell) ([`super::shell`]).
    pub(crate) windows_shell: Shell,
    /// Where and how it registers MCP servers.
    pub(crate) mcp: McpConfig,
    /// The `/recall` command file, for agents with file commands.
    pub(crate) recall_command: Option<RecallCommand>,
    /// The folder (relative to its own) of its file-defined subagents,
    /// where init installs the retrieval one.
    pub(crate) subagents_folder: Option<&'static str>,
}

impl Install {
    /// Whether a project (or `$HOME`) at `base` shows the agent is used there.
    pub(crate) fn used_in(&self, base: &Path) -> bool {
        self.used_if.iter().any(|mark| match mark {
            Mark::Folder(f) => base.join(f).is_dir(),
            Mark::File(f) => base.join(f).is_file(),
        })
    }
}

/// A path, relative to a project or `$HOME`, that shows an agent is used.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mark {
    Folder(&'static str),
    File(&'static str),
}

/// What differs in behaviour between agents, one trait per concern:
/// reading their hook payloads ([`Payloads`]), writing their settings
/// ([`Settings`]), whether they trust a project ([`Trust`]), where their
/// transcripts are ([`TranscriptStore`]) and how to read one
/// ([`TranscriptFormat`]). The facts are in each one's [`Description`]
/// ([`Described`]). Each agent implements every one; an empty `impl` takes
/// the defaults each method documents (Claude Code's payload shape; no
/// trust gate; no transcript format claimed).
pub(crate) trait AgentSpec:
    Described + Payloads + Settings + Trust + TranscriptStore + TranscriptFormat + Sync
{
}

impl<T> AgentSpec for T where
    T: Described + Payloads + Settings + Trust + TranscriptStore + TranscriptFormat + Sync
{
}

/// An agent's facts.
pub(crate) trait Described {
    fn description(&self) -> &'static Description;
}

/// What an agent's hook payloads say.
pub(crate) trait Payloads: Described {
    /// Whether a hook payload has this agent's shape. Claude Code's is the
    /// fallback, so it claims none.
    fn sent(&self, _payload: &Map<String, Value>) -> bool {
        false
    }
    /// The file a tool call's payload reads or edits, when the tool is one
    /// of its file tools. The default reads Claude Code's shape:
    /// `tool_name`, and `tool_input.file_path` (`notebook_path`).
    fn touched_file(&self, payload: &Map<String, Value>) -> Option<TouchedFile> {
        let tool = payload.get("tool_name")?.as_str()?;
        let tools = self.description().tools;
        let kind = tools.iter().find(|(name, _)| *name == tool)?.1;
        if !kind.touches_a_file() {
            return None;
        }
        let input = payload.get("tool_input")?;
        let path = ["file_path", "notebook_path", "path"]
            .iter()
            .find_map(|k| input.get(k)?.as_str().filter(|p| !p.is_empty()))?;
        Some(TouchedFile {
            tool: tool.to_string(),
            path: PathBuf::from(path),
        })
    }
}

/// The hooks init writes into an agent's settings, and how to find them
/// again.
pub(crate) trait Settings {
    /// The hooks init writes into the settings file.
    fn hooks(&self, commands: &HookCommands) -> Vec<HookSpec>;
    /// The plugin file init writes whole (at the settings file's place) for
    /// an agent whose hooks are code rather than settings (opencode), with
    /// the words `marker` in one of its comments; `None` for settings hooks.
    fn plugin(&self, _c: &HookCommands, _marker: &str) -> Option<String> {
        None
    }
    /// Whether the settings (or plugin) text runs thehook's hook command
    /// `sub`: a command line naming thehook and `sub`.
    fn runs_hook_in(&self, text: &str, sub: &str) -> bool {
        let runs = |part: &str| {
            matches!(super::shell::words(part.trim()).as_slice(),
                [program, s, ..] if super::is_thehook_program(program) && s == sub)
        };
        text.lines().any(|l| l.split('"').any(runs))
    }
}

/// Whether an agent runs a project's hooks, and how the user says so.
pub(crate) trait Trust {
    /// Whether the agent runs project hooks in `root` at all: `None` when it
    /// has no such gate, else whether the user has trusted the project.
    fn project_trusted(&self, _root: &Path, _home: &Path) -> Option<bool> {
        None
    }
    /// How the user trusts a project, for init and doctor to say.
    fn trust_advice(&self, _root: &Path) -> String {
        String::new()
    }
    /// The trust entries each of thehook's hooks needs in a file of the
    /// agent's own besides the settings (`hooks_file` holds `settings`).
    fn hook_trust(&self, _hooks_file: &Path, _settings: &Value, _home: &Path) -> Option<HookTrust> {
        None
    }
}

/// Where an agent keeps its transcripts, and when one is whole.
pub(crate) trait TranscriptStore {
    /// This project's transcripts in the agent's store under `home`.
    fn transcripts(&self, scope: &StoreScope) -> Vec<StoredTranscript>;
    /// The transcript of session `session_id` in its store under `home`, for
    /// a session-end payload that names none.
    fn transcript_of(&self, _session_id: &str, _home: &Path) -> Option<PathBuf> {
        None
    }
    /// Whether a session's transcript at `path` (`None`: not found) is
    /// whole, for a session-end hook queued at `ended`: `false` while the
    /// agent is still to write it (Copilot CLI writes it after the hook).
    fn transcript_settled(&self, _path: Option<&Path>, _ended: std::time::SystemTime) -> bool {
        true
    }
    /// Transcripts of a session's subagents kept in files of their own.
    fn subagent_transcripts(&self, _session: &Path, _session_id: &str) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// How an agent's transcripts are written, and read into the common
/// model.
pub(crate) trait TranscriptFormat {
    /// Whether a JSONL record has the shape of its transcripts' records.
    fn sniffs(&self, _record: &Map<String, Value>) -> bool {
        false
    }
    /// Its transcript from JSONL records it sniffed; `None` when it writes
    /// none (only JSON documents).
    fn read_records(&self, _records: &[Record]) -> Option<Result<Transcript, NotATranscript>> {
        None
    }
    /// Its transcript from one JSON document, or `None` when `doc` is not one.
    fn read_document(&self, _doc: &Value) -> Option<Transcript> {
        None
    }
}

/// Which of the optional hooks init wires (`retrieval.on_prompt`, `on_file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wired {
    pub(crate) prompt: bool,
    pub(crate) file: bool,
}

/// The hook commands of one init, and the session-start sources that inject.
pub(crate) struct HookCommands<'a> {
    pub(crate) retrieve: String,
    pub(crate) capture: String,
    /// The prompt hook's command; `None` when `retrieval.on_prompt` is off.
    pub(crate) prompt: Option<String>,
    /// The file hook's command; `None` when `retrieval.on_file` is off or
    /// the agent's tool hook cannot add context.
    pub(crate) file: Option<String>,
    /// The subagent hook's command; `None` when the agent has no
    /// subagent-start event that adds context.
    pub(crate) subagent: Option<String>,
    pub(crate) inject_on: Vec<&'a str>,
    /// The program, as a path, and the agent's name, for commands written
    /// for another shell than the agent's own ([`HookCommands::command`]).
    pub(crate) hook_bin: &'a str,
    pub(crate) agent: &'static str,
}

impl<'a> HookCommands<'a> {
    /// The commands that run `hook_bin` for `agent`, written for the shell
    /// it runs hooks in; the prompt's only with `on_prompt`, the file
    /// hook's only with `on_file` and an agent that can take it.
    pub(crate) fn new(
        agent: Agent,
        hook_bin: &'a str,
        on: Wired,
        inject_on: Vec<&'a str>,
    ) -> HookCommands<'a> {
        let mut c = HookCommands {
            retrieve: String::new(),
            capture: String::new(),
            prompt: None,
            file: None,
            subagent: None,
            inject_on,
            hook_bin,
            agent: agent.as_str(),
        };
        let shell = agent.shell();
        c.retrieve = c.command(shell, "retrieve");
        c.capture = c.command(shell, "capture");
        c.prompt = on.prompt.then(|| c.command(shell, "prompt"));
        let takes_file = agent.description().protocol.file.adds_context();
        c.file = (on.file && takes_file).then(|| c.command(shell, "file"));
        let takes_subagent = agent.description().protocol.subagent.adds_context();
        c.subagent = takes_subagent.then(|| c.command(shell, "subagent"));
        c
    }

    /// The hook command `sub` as `shell` runs it, for a hooks file that
    /// names a command for each shell (Copilot CLI's `bash`/`powershell`).
    pub(crate) fn command(&self, shell: super::shell::Shell, sub: &str) -> String {
        format!(
            "{} {sub} --agent {}",
            shell.program(self.hook_bin),
            self.agent
        )
    }
}

/// Claude Code's hook entries (which Codex copied): SessionStart for the
/// sources that inject, with a 10 s timeout, SessionEnd with
/// `session_end_timeout` seconds, UserPromptSubmit, PreToolUse on the
/// `file_tools` (a matcher) when there are, and SubagentStart (with
/// PreToolUse on `task_tools`, the tools whose call says a subagent's task,
/// when there are); all `{"type": "command", ...}`.
pub(crate) fn command_hooks(
    c: &HookCommands,
    session_end_timeout: u64,
    file_tools: Option<&str>,
    task_tools: Option<&str>,
) -> Vec<HookSpec> {
    let mut hooks = vec![
        HookSpec {
            event: "SessionStart",
            matcher: Some(c.inject_on.join("|")),
            handler: json!({"type": "command", "command": c.retrieve, "timeout": 10}),
        },
        HookSpec {
            event: "SessionEnd",
            matcher: None,
            handler: json!({"type": "command", "command": c.capture, "timeout": session_end_timeout}),
        },
    ];
    hooks.extend(c.prompt.as_ref().map(|prompt| HookSpec {
        event: "UserPromptSubmit",
        matcher: None,
        handler: json!({"type": "command", "command": prompt, "timeout": 10}),
    }));
    if let (Some(file), Some(tools)) = (&c.file, file_tools) {
        hooks.push(HookSpec {
            event: "PreToolUse",
            matcher: Some(tools.to_string()),
            handler: json!({"type": "command", "command": file, "timeout": 10}),
        });
    }
    if let Some(subagent) = &c.subagent {
        hooks.push(HookSpec {
            event: "SubagentStart",
            matcher: None,
            handler: json!({"type": "command", "command": subagent, "timeout": 10}),
        });
        hooks.extend(task_tools.map(|tools| HookSpec {
            event: "PreToolUse",
            matcher: Some(tools.to_string()),
            handler: json!({"type": "command", "command": subagent, "timeout": 10}),
        }));
    }
    hooks
}

/// `{"hookSpecificOutput": {"hookEventName": event, "additionalContext":
/// context}}`: how Claude Code, Codex and Gemini CLI take added context.
pub(crate) fn hook_specific(event: &str, context: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": event,
            "additionalContext": context,
        }
    })
}

/// The file of a tool call whose name (`tool`) is one of `tools` (`a|b`)
/// and whose input's `field` names it: the shape Gemini CLI and Copilot CLI
/// send, each with its own keys.
pub(crate) fn file_of_call(
    tool: Option<&Value>,
    tools: &str,
    input: Option<&Value>,
    field: &str,
) -> Option<TouchedFile> {
    let tool = tool?.as_str()?;
    if !tools.split('|').any(|t| t == tool) {
        return None;
    }
    let path = input?.get(field)?.as_str().filter(|p| !p.is_empty())?;
    Some(TouchedFile {
        tool: tool.to_string(),
        path: PathBuf::from(path),
    })
}

/// A payload's `transcript_path`, where an agent's store shows in it.
pub(crate) fn transcript_path(payload: &Map<String, Value>) -> Option<&str> {
    payload.get("transcript_path").and_then(Value::as_str)
}

/// One hook init wants in a settings file.
pub(crate) struct HookSpec {
    pub(crate) event: &'static str,
    pub(crate) matcher: Option<String>,
    pub(crate) handler: Value,
}

/// How an agent registers MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpConfig {
    /// An `mcpServers` object in a JSON file. `typed`: entries say
    /// `"type": "stdio"`. `user_scope_command`: user-scope servers are added
    /// with this command rather than by editing a file in `$HOME`.
    Json {
        file: &'static str,
        typed: bool,
        user_scope_command: Option<&'static str>,
    },
    /// An `[mcp_servers.<name>]` table in a TOML file.
    Toml { file: &'static str },
    /// A format init does not write (opencode's `mcp` object): the user
    /// adds the server as this says.
    ByHand { advice: &'static str },
}

impl McpConfig {
    /// The file init writes, if it writes one.
    pub(crate) fn file(self) -> Option<&'static str> {
        match self {
            McpConfig::Json { file, .. } | McpConfig::Toml { file } => Some(file),
            McpConfig::ByHand { .. } => None,
        }
    }
}

/// A `/recall` command file and the dialect it is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RecallCommand {
    /// Relative to the agent's folder.
    pub(crate) file: &'static str,
    /// Front matter with `allowed-tools`, and `!` to run the command into
    /// the prompt (Claude Code); else plain instructions.
    pub(crate) runs_inline: bool,
}

/// Where to look for one project's transcripts.
pub(crate) struct StoreScope<'a> {
    pub(crate) root: &'a Path,
    pub(crate) home: &'a Path,
    /// Asked before a file is opened (a time window, or everything).
    pub(crate) keep: &'a dyn Fn(&Path) -> bool,
}

impl StoreScope<'_> {
    /// Whether a session that ran in `cwd` belongs to the project.
    pub(crate) fn belongs(&self, cwd: &Option<PathBuf>) -> bool {
        cwd.as_ref().is_some_and(|c| c.starts_with(self.root))
    }
}

/// A transcript found in an agent's store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTranscript {
    pub agent: Agent,
    pub path: PathBuf,
    pub session_id: String,
    pub cwd: Option<PathBuf>,
}

/// Hook trust kept in a TOML file as `[hooks.state."<key>"] trusted_hash`
/// (Codex's `config.toml`): one entry per thehook hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HookTrust {
    /// The agent that keeps it.
    pub(crate) agent: Agent,
    pub(crate) file: PathBuf,
    /// (key, hash), in the order of the hooks file.
    pub(crate) entries: Vec<(String, String)>,
}
