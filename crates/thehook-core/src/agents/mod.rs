//! The agents thehook wires into. Each has a file of its own that says all
//! thehook needs to know about it ([`spec::AgentSpec`]): names, settings
//! file and hook entries, payload shape and session-start output, MCP
//! registration, and where its transcripts are kept. Checked against each
//! agent's hook docs and, for Codex and Gemini CLI, the real CLIs.

mod claude_code;
mod codex;
mod copilot;
mod cursor;
mod gemini;
mod llm;
mod opencode;
mod payload;
pub mod read;
pub(crate) mod shell;
pub(crate) mod spec;
mod store;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use payload::{
    session_start_output, BadPayload, HandedTask, HookEvent, HookPayload, TouchedFile,
    SUBAGENT_TOOLS,
};
pub use spec::StoredTranscript;

use spec::AgentSpec;

/// An agent with session hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    ClaudeCode,
    Cursor,
    Codex,
    Gemini,
    Copilot,
    Opencode,
}

impl Agent {
    /// The agent assumed when nothing says which: a payload of no other
    /// agent's shape is its, and init wires it when no agent is found. Its
    /// conventions are the ones the others copied.
    pub const DEFAULT: Agent = Agent::ClaudeCode;

    pub const ALL: [Agent; 6] = [
        Agent::ClaudeCode,
        Agent::Cursor,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Opencode,
    ];

    /// Everything thehook knows about this agent.
    pub(crate) fn spec(self) -> &'static dyn AgentSpec {
        match self {
            Agent::ClaudeCode => &claude_code::ClaudeCode,
            Agent::Cursor => &cursor::Cursor,
            Agent::Codex => &codex::Codex,
            Agent::Gemini => &gemini::Gemini,
            Agent::Copilot => &copilot::Copilot,
            Agent::Opencode => &opencode::Opencode,
        }
    }

    /// Its facts: identity, hook protocol, installation, tools, distil
    /// command.
    pub(crate) fn description(self) -> &'static spec::Description {
        self.spec().description()
    }

    pub fn as_str(self) -> &'static str {
        self.description().identity.name
    }

    /// The name people type (`--agent claude`).
    pub fn short_name(self) -> &'static str {
        self.description().identity.short_name
    }

    /// The name in prose (`Claude Code`).
    pub fn display_name(self) -> &'static str {
        self.description().identity.display_name
    }

    /// The file (relative to the project) it registers MCP servers in,
    /// when it takes them from a file.
    pub fn mcp_file(self) -> Option<&'static str> {
        self.description().install.mcp.file()
    }

    /// Its CLI's name as `llm.cli` gives it (`claude`, `cursor-agent`).
    pub fn distill_cli_name(self) -> &'static str {
        self.description().distill.name
    }

    /// The agent whose transcript or payload this is, by its name in a
    /// session file, a job or a transcript ([`Agent::as_str`]).
    pub fn named(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// Accepts the names people use: `claude`, `claude-code`, `cursor`, ...
    pub fn parse(name: &str) -> Option<Agent> {
        let name = name.trim().to_ascii_lowercase();
        Agent::ALL.into_iter().find(|a| {
            let id = &a.description().identity;
            id.name == name || id.short_name == name || id.aliases.contains(&&*name)
        })
    }

    /// The folder that holds the agent's settings, in a project or in `$HOME`.
    pub fn folder(self) -> &'static str {
        self.description().identity.folder
    }

    /// The settings file with the agent's hooks, relative to the project.
    pub fn settings_file(self) -> PathBuf {
        self.settings_file_in(false)
    }

    /// The folder of its settings: the user's (in `$HOME`) with `global`,
    /// else the project's.
    pub fn folder_in(self, global: bool) -> &'static str {
        if global {
            self.description()
                .install
                .user_folder
                .unwrap_or(self.folder())
        } else {
            self.folder()
        }
    }

    /// The settings file with the agent's hooks, relative to home with
    /// `global`, else to the project.
    pub fn settings_file_in(self, global: bool) -> PathBuf {
        Path::new(self.folder_in(global)).join(self.description().identity.settings_file)
    }

    /// Whether the project (or home) at `base` shows the agent is used there.
    pub fn used_in(self, base: &Path) -> bool {
        self.description().install.used_in(base)
    }

    /// Programs whose presence on PATH says the agent is installed.
    pub fn binaries(self) -> &'static [&'static str] {
        self.description().identity.binaries
    }

    /// The shell the agent runs hook commands in on this platform.
    pub fn shell(self) -> shell::Shell {
        if cfg!(windows) {
            self.description().install.windows_shell
        } else {
            shell::Shell::Posix
        }
    }

    /// Whether the agent's settings under `base` (a project or `$HOME`) hold
    /// a thehook hook command.
    pub fn runs_thehook(self, base: &Path) -> bool {
        std::fs::read_to_string(base.join(self.settings_file())).is_ok_and(|t| {
            HOOK_COMMANDS
                .iter()
                .any(|sub| self.spec().runs_hook_in(&t, sub))
        })
    }

    /// Whether its settings under `base` run thehook's hook command `sub`
    /// (one of [`HOOK_COMMANDS`]).
    pub fn runs_hook(self, base: &Path, sub: &str) -> bool {
        std::fs::read_to_string(base.join(self.settings_file()))
            .is_ok_and(|t| self.spec().runs_hook_in(&t, sub))
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every agent by its name in prose: `Claude Code, Cursor, ... or opencode`.
pub fn titles() -> &'static str {
    static TITLES: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| crate::text::either(&Agent::ALL.map(Agent::display_name)));
    &TITLES
}

/// Every agent's CLI as the distilling LLM, by the name to install it by:
/// `Claude Code, cursor-agent, ... or opencode`.
pub fn distill_cli_titles() -> String {
    crate::text::either(&Agent::ALL.map(|a| a.description().distill.title))
}

/// Whether a hook command runs one of thehook's [`HOOK_COMMANDS`], whatever
/// path, quoting (for a Unix shell or PowerShell) or arguments it was
/// written with.
pub fn is_thehook_command(command: &str) -> bool {
    match shell::words(command).as_slice() {
        [program, sub, ..] => is_thehook_program(program) && HOOK_COMMANDS.contains(&sub.as_str()),
        _ => false,
    }
}

/// The commands agents' hooks run: session start, each prompt, each file
/// a tool reads or edits, each subagent, session end.
pub const HOOK_COMMANDS: [&str; 5] = ["retrieve", "prompt", "file", "subagent", "capture"];

/// Whether a command's program is thehook: the native binary (`.exe` on
/// Windows) or the npm shim (`thehook.cmd` is npm's launcher of it on
/// Windows, which `init` may find on PATH through PATHEXT).
pub fn is_thehook_program(program: &str) -> bool {
    matches!(
        shell::file_name(program),
        "thehook" | "thehook.exe" | "thehook.js" | "thehook.cmd"
    )
}

/// The agent settings files of this project that run thehook
/// (`.claude/settings.json`, ...).
pub fn hooks_wired(root: &Path) -> Vec<String> {
    Agent::ALL
        .into_iter()
        .filter(|a| a.runs_thehook(root))
        .map(|a| a.settings_file().to_string_lossy().into_owned())
        .collect()
}

/// This project's transcripts in every agent's store under `home`, among
/// the files `keep` accepts (asked before a file is opened). Subagents' own
/// files are not listed: they belong to their session.
pub fn project_transcripts(
    root: &Path,
    home: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<StoredTranscript> {
    let scope = spec::StoreScope { root, home, keep };
    Agent::ALL
        .into_iter()
        .flat_map(|a| a.spec().transcripts(&scope))
        .collect()
}

/// The transcript of a session whose payload named none, in `agent`'s
/// store under `home`.
pub fn transcript_of(agent: Agent, session_id: &str, home: &Path) -> Option<PathBuf> {
    agent.spec().transcript_of(session_id, home)
}

/// The transcripts of a session's subagents kept in files of their own.
pub fn subagent_transcripts(agent: Agent, session: &Path, session_id: &str) -> Vec<PathBuf> {
    agent.spec().subagent_transcripts(session, session_id)
}

#[cfg(test)]
mod tests;
