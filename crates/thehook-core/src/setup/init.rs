//! `thehook init` and `thehook uninstall`: wiring the session hooks into each
//! agent's settings, and unwiring exactly that. Settings files are edited as
//! JSON values with their key order and indentation kept; thehook's own
//! entries are recognised by their command (`<thehook> retrieve|capture`),
//! so running init again changes nothing and uninstall touches nothing else.

mod json_file;
mod mcp;
mod settings;
pub(crate) mod trust;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::agents::spec::{HookTrust, RecallCommand};
use crate::agents::Agent;
use crate::config::{SessionSource, COMMENTED_DEFAULTS};
use crate::error::{IoContext, Result};
use crate::project::Project;
use crate::store::write_atomic;

/// What to wire, and where.
#[derive(Debug, Clone)]
pub struct InitOptions {
    pub agents: Vec<Agent>,
    /// Write the user-level files under `home` instead of the project's.
    pub global: bool,
    pub home: PathBuf,
    /// The program hook commands run, as a path (quoted for each agent's
    /// shell where it is written).
    pub hook_bin: String,
    /// Session-start sources that inject (the config's `retrieval.inject_on`).
    pub inject_on: Vec<SessionSource>,
    /// Wire the prompt hook (the config's `retrieval.on_prompt`).
    pub on_prompt: bool,
    /// Wire the file hook where the agent can take it (`retrieval.on_file`).
    pub on_file: bool,
    /// Register the MCP server (`thehook mcp`) with each agent too.
    pub mcp: bool,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Created,
    Updated,
    Unchanged,
    Removed,
    /// Left alone on purpose; the detail says why.
    Kept,
    /// Something only the user can do (trust a project in the agent).
    ToDo,
}

impl Action {
    /// The word the reports use (and the JSON's `action`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Updated => "updated",
            Action::Unchanged => "unchanged",
            Action::Removed => "removed",
            Action::Kept => "kept",
            Action::ToDo => "to do",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub path: PathBuf,
    pub action: Action,
    pub detail: String,
}

/// Marks the command files init writes, so uninstall removes only those.
const MARKER: &str = "<!-- written by `thehook init`; `thehook uninstall` removes it -->";
/// The words of [`MARKER`], which a file in another language carries in its
/// own comment syntax.
const MARKER_TEXT: &str = "written by `thehook init`; `thehook uninstall` removes it";

/// Agents to wire when none is named: those whose folder (in `base`) or
/// program (on PATH) is present, else Claude Code.
pub fn detect_agents(base: &Path, on_path: impl Fn(&str) -> bool) -> Vec<Agent> {
    let found: Vec<Agent> = Agent::ALL
        .into_iter()
        .filter(|a| a.used_in(base) || a.binaries().iter().any(|b| on_path(b)))
        .collect();
    if found.is_empty() {
        vec![Agent::DEFAULT]
    } else {
        found
    }
}

/// Creates `.thehook/` (unless global) and wires every agent in `options`.
pub fn init(root: &Path, options: &InitOptions) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    if !options.global {
        changes.extend(create_memory_folder(&Project::at(root))?);
    }
    let base = base_dir(root, options);
    for &agent in &options.agents {
        if options.mcp {
            changes.push(mcp::register(&base, agent, options)?);
        }
        // The subagent uses the MCP tools when init's server entry is there
        // (registered now or by an earlier `init --mcp`), else the commands.
        let wired = InitOptions {
            mcp: mcp::is_registered(&base, agent),
            ..options.clone()
        };
        let path = base.join(agent.settings_file_in(options.global));
        match agent
            .spec()
            .plugin(&settings::commands(agent, &wired), MARKER_TEXT)
        {
            Some(plugin) => changes.push(write_marked(&path, &plugin, "the thehook plugin")?),
            None => changes.push(settings::wire(&path, agent, &wired)?),
        }
        if let Some(hooks) = hook_trust(agent, &path, &options.home) {
            changes.extend(trust::trust(&hooks)?);
        }
        if !options.global && agent.spec().project_trusted(root, &options.home) == Some(false) {
            changes.push(Change {
                path: path.clone(),
                action: Action::ToDo,
                detail: agent.spec().trust_advice(root),
            });
        }
        if let Some(command) = agent.description().install.recall_command {
            let wanted = recall_command(command, &agent.shell().program(&options.hook_bin));
            changes.push(write_marked(
                &base.join(agent.folder()).join(command.file),
                &wanted,
                "the /recall command",
            )?);
        }
        if let Some(file) = subagent_file(&base, agent) {
            let wanted = recall_subagent(&agent.shell().program(&options.hook_bin), wired.mcp);
            changes.push(write_marked(&file, &wanted, "the thehook-recall subagent")?);
        }
    }
    Ok(changes)
}

/// Removes thehook's hook entries and command files from every agent's
/// settings (all agents, whatever init was given). Memory is kept.
pub fn uninstall(root: &Path, options: &InitOptions) -> Result<Vec<Change>> {
    let base = base_dir(root, options);
    let mut changes = Vec::new();
    for agent in Agent::ALL {
        // First: Gemini keeps hooks and servers in one file, whose backup is
        // dropped only when the file is back to what it was.
        match mcp::unregister(&base, agent) {
            Ok(change) => changes.extend(change),
            Err(e) => changes.push(Change {
                path: base.join(mcp::file(agent).unwrap_or_default()),
                action: Action::Kept,
                detail: format!("left as it is: {e}"),
            }),
        }
        let path = base.join(agent.settings_file_in(options.global));
        // Before the hooks leave the file: their trust entries are found by
        // where they sit in it.
        if let Some(hooks) = hook_trust(agent, &path, &options.home) {
            match trust::untrust(&hooks) {
                Ok(change) => changes.extend(change),
                Err(e) => changes.push(Change {
                    path: hooks.file.clone(),
                    action: Action::Kept,
                    detail: format!("left as it is: {e}"),
                }),
            }
        }
        if agent
            .spec()
            .plugin(&settings::commands(agent, options), MARKER_TEXT)
            .is_some()
        {
            changes.extend(remove_marked(&path, "the thehook plugin")?);
        } else {
            match settings::unwire(&path, agent) {
                Ok(Some(change)) => changes.push(change),
                Ok(None) => {}
                // One unreadable file must not keep the others wired.
                Err(e) => changes.push(Change {
                    path,
                    action: Action::Kept,
                    detail: format!("left as it is: {e}"),
                }),
            }
        }
        if let Some(command) = agent.description().install.recall_command {
            let path = base.join(agent.folder()).join(command.file);
            changes.extend(remove_marked(&path, "the /recall command")?);
        }
        if let Some(file) = subagent_file(&base, agent) {
            changes.extend(remove_marked(&file, "the thehook-recall subagent")?);
        }
        // The agent's folder too, when what init put there was all it held.
        let _ = std::fs::remove_dir(base.join(agent.folder_in(options.global)));
    }
    let memory = Project::at(root).dir();
    if !options.global && memory.is_dir() {
        changes.push(Change {
            path: memory,
            action: Action::Kept,
            detail: "your memory; delete it yourself if you want it gone".into(),
        });
    }
    Ok(changes)
}

/// The trust entries thehook's hooks in the settings file at `path` need,
/// for agents that keep such trust (Codex).
pub(crate) fn hook_trust(agent: Agent, path: &Path, home: &Path) -> Option<HookTrust> {
    let settings = json_file::read(path).ok().filter(|s| s.existed)?;
    agent.spec().hook_trust(path, &settings.value, home)
}

fn base_dir(root: &Path, options: &InitOptions) -> PathBuf {
    if options.global {
        options.home.clone()
    } else {
        root.to_path_buf()
    }
}

fn create_memory_folder(project: &Project) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    let existed = project.check_layout()?;
    let attributes = project.dir().join(".gitattributes");
    let had_attributes = attributes.exists();
    crate::memory::create_layout(project)?;
    if !existed {
        changes.push(Change {
            path: project.dir(),
            action: Action::Created,
            detail: "sessions/, knowledge/, a .gitignore for failed/ queue/ index/ logs/, \
                     and a .gitattributes that merges knowledge by union"
                .into(),
        });
    } else if !had_attributes {
        changes.push(Change {
            path: attributes,
            action: Action::Created,
            detail: "git merges knowledge/ and consolidated.txt by union: teammates never conflict"
                .into(),
        });
    }
    let config = project.config_path();
    if !config.exists() {
        write_atomic(&config, COMMENTED_DEFAULTS.as_bytes())?;
        changes.push(Change {
            path: config,
            action: Action::Created,
            detail: "the defaults, commented".into(),
        });
    }
    Ok(changes)
}

/// The `/recall` command file's text.
fn recall_command(command: RecallCommand, bin: &str) -> String {
    match command.runs_inline {
        // `!` runs the command before the prompt is sent and puts its output
        // in the prompt; allowed-tools lets it run without asking.
        true => format!(
            "---\ndescription: Search this project's memory (thehook)\nargument-hint: <what to look for>\nallowed-tools: Bash({bin} recall:*)\n---\n{MARKER}\n\nProject memory for \"$ARGUMENTS\":\n\n!`{bin} recall \"$ARGUMENTS\"`\n\nAnswer from these results and cite them as `path:line`. If none fits, say that memory has nothing on it.\n"
        ),
        false => format!(
            "{MARKER}\n# Recall\n\nSearch this project's memory: run `{bin} recall \"$ARGUMENTS\"` in the terminal (put the words the user typed after /recall in place of $ARGUMENTS), then answer from the results and cite them as `path:line`. If none fits, say that memory has nothing on it.\n"
        ),
    }
}

/// The retrieval subagent's file, in an agent's subagents folder.
const SUBAGENT_FILE: &str = "thehook-recall.md";

/// Where init puts the retrieval subagent for `agent` under `base`, if
/// the agent has file-defined subagents.
fn subagent_file(base: &Path, agent: Agent) -> Option<PathBuf> {
    let folder = agent.description().install.subagents_folder?;
    Some(base.join(agent.folder()).join(folder).join(SUBAGENT_FILE))
}

/// The retrieval subagent: the main agent hands it history questions; it
/// searches with recall, sessions and read, overview first, and answers with
/// citations. With the MCP server registered it gets exactly those MCP
/// tools; else the three commands. (Claude Code drops the command pattern of
/// `Bash(...)` in a subagent's `tools` for now, so there it documents intent
/// and the commands ask for permission like any other.)
fn recall_subagent(bin: &str, mcp: bool) -> String {
    let tools = if mcp {
        "mcp__thehook__recall, mcp__thehook__sessions, mcp__thehook__read".to_string()
    } else {
        format!("Bash({bin} recall:*), Bash({bin} sessions:*), Bash({bin} read:*)")
    };
    let (recall, sessions, read) = if mcp {
        (
            "the `recall` tool (query, k, type, since)".to_string(),
            "the `sessions` tool".to_string(),
            "the `read` tool (id; then lines such as \"12-15\", or grep)".to_string(),
        )
    } else {
        (
            format!("`{bin} recall \"<the question in words>\" -k 8`"),
            format!("`{bin} sessions` (`--since 2w`, `--agent <agent>`)"),
            format!("`{bin} read <id>`, then `{bin} read <id> 12-15` (or `--grep <regex>`)"),
        )
    };
    // Quoted: the text holds `: `, which plain YAML scalars cannot.
    let description = serde_json::to_string(SUBAGENT_DESCRIPTION).expect("a string serialises");
    format!(
        "---\nname: thehook-recall\ndescription: {description}\ntools: {tools}\nmodel: inherit\n---\n{MARKER}\n\nYou search this project's history for the main agent and report what you find. You never edit files.\n\n1. Distilled memory first: {recall}. It returns conventions, architecture decisions, gotchas and session summaries, each with its `path:line`.\n2. When the answer needs what actually happened in a session: {sessions} lists past sessions newest first as `<id> <start> <lines> <summary>`; pick candidates by date and summary.\n3. Read a candidate as an overview first: {read}. The overview has one line per step (`number|time|kind|...`); ask for the few lines that matter in full.\n\nAnswer in a few sentences or bullets of facts, each with its citation: `path:line` for memory items, `<session id>:<line>` for transcript lines. Quote exact commands, errors and file names. If nothing relevant is found, say so plainly; do not guess.\n"
    )
}

const SUBAGENT_DESCRIPTION: &str = "Searches this project's memory and past agent sessions. Use it proactively when history matters: planning a change, debugging a problem that may have come up before, or questions like \"why did we...\", \"how did we...\", \"what did we decide about...\". In the prompt, give the question and what you are working on (files, error messages, feature names).";

/// Writes a file that carries init's marker, unless the user has put a file
/// of their own there.
fn write_marked(path: &Path, wanted: &str, what: &str) -> Result<Change> {
    let existing = std::fs::read(path).map(|b| String::from_utf8_lossy(&b).into_owned());
    let action = match existing {
        Ok(old) if old == wanted => Action::Unchanged,
        Ok(old) if !old.contains(MARKER_TEXT) => {
            return Ok(Change {
                path: path.to_path_buf(),
                action: Action::Kept,
                detail: format!("{what} of your own is there; thehook's was not installed"),
            })
        }
        Ok(_) => Action::Updated,
        Err(_) => Action::Created,
    };
    if action != Action::Unchanged {
        let dir = path.parent().expect("a file in a folder");
        std::fs::create_dir_all(dir).at("cannot create folder", dir)?;
        write_atomic(path, wanted.as_bytes())?;
    }
    Ok(Change {
        path: path.to_path_buf(),
        action,
        detail: what.into(),
    })
}

fn remove_marked(path: &Path, what: &str) -> Result<Option<Change>> {
    match std::fs::read(path) {
        Ok(bytes) if String::from_utf8_lossy(&bytes).contains(MARKER_TEXT) => {
            std::fs::remove_file(path).at("cannot remove", path)?;
            // The folder too, when init's file was all it held.
            if let Some(dir) = path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
            Ok(Some(Change {
                path: path.to_path_buf(),
                action: Action::Removed,
                detail: what.into(),
            }))
        }
        _ => Ok(None),
    }
}

/// Where the `thehook` that hooks should run is, and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookBin {
    /// The program hook commands run: a path, or `thehook` from PATH.
    pub program: String,
    /// One line for the report: which thehook and why.
    pub note: String,
    /// Set when hooks may not find thehook: what to do.
    pub warning: Option<String>,
}

/// Picks the `thehook` hook commands run: the one on PATH, by absolute path
/// when that path is stable (agents started from a desktop often have
/// another PATH than the terminal); else this executable when it is stable;
/// else the bare name, with a warning on how to install.
///
/// Run from the npm package (`npx thehook init`, `cli()` in Node), `npm_bin`
/// is the native `thehook` its platform package ships: hooks run it directly
/// (about 1 ms to start, against about 0.5 s for `npx thehook`), unless it
/// sits in npx's throwaway cache.
pub fn resolve_hook_bin(
    path_var: Option<&std::ffi::OsStr>,
    current_exe: Option<&Path>,
    npm_bin: Option<&Path>,
) -> HookBin {
    let from_npm = npm_bin.filter(|p| p.is_file() && !slashed(p).contains("/_npx/"));
    if let Some(native) = from_npm {
        return HookBin {
            program: native.to_string_lossy().into_owned(),
            note: format!(
                "hooks run {} (the native thehook of the npm package)",
                native.display()
            ),
            warning: None,
        };
    }
    let on_path = path_var.and_then(|p| crate::env::find_on_path(p, "thehook"));
    if let Some(found) = on_path.filter(|p| is_stable(p)) {
        return HookBin {
            program: found.to_string_lossy().into_owned(),
            note: format!("hooks run {} (found on PATH)", found.display()),
            warning: None,
        };
    }
    if let Some(exe) = current_exe.filter(|p| is_stable(p)) {
        return HookBin {
            program: exe.to_string_lossy().into_owned(),
            note: format!(
                "hooks run {} (this thehook; it is not on PATH)",
                exe.display()
            ),
            warning: None,
        };
    }
    HookBin {
        program: "thehook".into(),
        note: "hooks run `thehook` from PATH".into(),
        warning: Some(
            "no installed thehook was found on PATH, so the hooks will not run until there is one: install it with `cargo install --path crates/thehook-cli` (from a checkout) or `npm install -g thehook`, then run `thehook init` again".into(),
        ),
    }
}

/// The `thehook` named with `--bin`, made absolute.
pub fn given_hook_bin(path: &Path) -> HookBin {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    HookBin {
        program: path.to_string_lossy().into_owned(),
        note: format!("hooks run {} (given with --bin)", path.display()),
        warning: None,
    }
}

/// Whether a path will still hold thehook next week: not a build output, an
/// npx cache or a temporary folder.
pub fn is_stable(path: &Path) -> bool {
    let s = slashed(path);
    let tmp = std::env::temp_dir();
    !(s.contains("/target/release/")
        || s.contains("/target/debug/")
        || s.contains("/_npx/")
        || s.contains("/.npm/")
        || s.contains("/npm-cache/")
        || path.starts_with(&tmp)
        || path.starts_with("/tmp"))
}

/// A path with `/` between its parts on every platform, for the checks
/// above.
fn slashed(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_are_found_by_their_own_folders_or_programs_not_by_a_plain_github_folder() {
        let dir = tempfile::tempdir().unwrap();
        let nothing = |_: &str| false;
        // Most repositories have .github/ (workflows): not Copilot's sign.
        std::fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
        assert_eq!(detect_agents(dir.path(), nothing), [Agent::ClaudeCode]);
        std::fs::create_dir_all(dir.path().join(".github/hooks")).unwrap();
        std::fs::write(dir.path().join("opencode.json"), "{}").unwrap();
        assert_eq!(
            detect_agents(dir.path(), nothing),
            [Agent::Copilot, Agent::Opencode]
        );
        let empty = tempfile::tempdir().unwrap();
        let found = detect_agents(empty.path(), |name| name == "copilot" || name == "opencode");
        assert_eq!(found, [Agent::Copilot, Agent::Opencode]);
    }

    #[test]
    fn the_subagent_front_matter_is_valid_yaml_with_its_tools() {
        for (mcp, tools) in [
            (false, "Bash(/opt/bin/thehook recall:*), Bash(/opt/bin/thehook sessions:*), Bash(/opt/bin/thehook read:*)"),
            (true, "mcp__thehook__recall, mcp__thehook__sessions, mcp__thehook__read"),
        ] {
            let text = recall_subagent("/opt/bin/thehook", mcp);
            let front = text.strip_prefix("---\n").unwrap().split("\n---\n").next().unwrap();
            let yaml: serde_yaml::Value = serde_yaml::from_str(front).unwrap();
            assert_eq!(yaml["name"], "thehook-recall");
            assert_eq!(yaml["tools"].as_str(), Some(tools));
            assert_eq!(yaml["description"].as_str(), Some(SUBAGENT_DESCRIPTION));
        }
    }

    #[test]
    fn build_outputs_and_temp_folders_are_not_stable_hook_paths() {
        assert!(is_stable(Path::new("/home/u/.cargo/bin/thehook")));
        assert!(is_stable(Path::new("/usr/local/bin/thehook")));
        assert!(!is_stable(Path::new("/src/thehook/target/release/thehook")));
        assert!(!is_stable(Path::new(
            "/home/u/.npm/_npx/1f/node_modules/.bin/thehook"
        )));
        assert!(!is_stable(Path::new("/tmp/x/thehook")));
        assert!(!is_stable(Path::new(
            r"C:\Users\ann\AppData\Local\npm-cache\_npx\1f\node_modules\thehook-win32-x64-msvc\thehook.exe"
        )));
        assert!(!is_stable(Path::new(
            r"D:\src\thehook\target\release\thehook.exe"
        )));
        assert!(is_stable(Path::new(
            r"C:\Program Files\thehook\thehook.exe"
        )));
    }
}
