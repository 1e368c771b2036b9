//! Registering the MCP server (`thehook mcp`) with each agent, for
//! `thehook init --mcp`, and taking it out again. JSON files get an
//! `mcpServers.thehook` entry; a TOML config gets a marked block. An entry
//! named `thehook` that runs something else is the user's and is left alone.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::json_file::{read, write};
use super::{Action, Change, InitOptions};
use crate::agents::shell::Shell;
use crate::agents::spec::McpConfig;
use crate::agents::{is_thehook_program, Agent};
use crate::error::{Error, IoContext, Result};
use crate::store::write_atomic;

const NAME: &str = "thehook";
const TOML_MARKER: &str =
    "# thehook's MCP server (written by `thehook init --mcp`; `thehook uninstall` removes it)";

/// The file that registers MCP servers for `agent`, relative to the project
/// (or home, with `--global`).
pub(super) fn file(agent: Agent) -> Option<PathBuf> {
    agent.description().install.mcp.file().map(PathBuf::from)
}

/// Whether an entry is one init writes: `thehook mcp` and nothing else
/// (an entry given an `env` or other keys is the user's).
fn is_ours(entry: &Value) -> bool {
    let only_our_keys = entry.as_object().is_some_and(|o| {
        o.keys()
            .all(|k| matches!(k.as_str(), "type" | "command" | "args"))
    });
    let runs_thehook = entry
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(is_thehook_program);
    only_our_keys && runs_thehook && entry.get("args") == Some(&json!(["mcp"]))
}

/// Whether init's server entry is in the agent's file.
pub(super) fn is_registered(base: &Path, agent: Agent) -> bool {
    let Some(file) = file(agent) else {
        return false;
    };
    let path = base.join(file);
    if let McpConfig::Toml { .. } = agent.description().install.mcp {
        return std::fs::read_to_string(&path).is_ok_and(|t| t.contains(TOML_MARKER));
    }
    read(&path).is_ok_and(|s| {
        s.value
            .get("mcpServers")
            .and_then(|m| m.get(NAME))
            .is_some_and(is_ours)
    })
}

pub(super) fn register(base: &Path, agent: Agent, o: &InitOptions) -> Result<Change> {
    // The agent's own folder, for an agent whose file init does not write.
    let path = base.join(file(agent).unwrap_or_else(|| agent.folder_in(o.global).into()));
    let typed = match agent.description().install.mcp {
        McpConfig::ByHand { advice } => {
            return Ok(Change {
                path,
                action: Action::ToDo,
                detail: advice.replace("{bin}", &Value::from(o.hook_bin.as_str()).to_string()),
            })
        }
        McpConfig::Toml { .. } => return register_toml(&path, agent, &o.hook_bin),
        McpConfig::Json {
            user_scope_command: Some(command),
            ..
        } if o.global => {
            return Ok(Change {
                path,
                action: Action::Kept,
                detail: format!(
                    "not registered for all projects: run `{command} {NAME} -- {} mcp`",
                    Shell::native().argument(&o.hook_bin)
                ),
            });
        }
        McpConfig::Json { typed, .. } => typed,
    };
    let mut entry = Map::new();
    if typed {
        entry.insert("type".into(), json!("stdio"));
    }
    entry.insert("command".into(), json!(o.hook_bin));
    entry.insert("args".into(), json!(["mcp"]));
    let wanted = Value::Object(entry);
    let mut s = read(&path)?;
    let servers = s
        .value
        .as_object_mut()
        .expect("checked on read")
        .entry("mcpServers")
        .or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return Err(Error::Settings {
            path,
            problem: "`mcpServers` is not an object".into(),
            source: None,
            fix: "make `mcpServers` an object of servers, then run the command again".into(),
        });
    };
    let action = match servers.get(NAME) {
        Some(existing) if existing == &wanted => Action::Unchanged,
        Some(existing) if !is_ours(existing) => {
            return Ok(Change {
                path,
                action: Action::Kept,
                detail: format!("an MCP server of your own is named {NAME}; left as it is"),
            })
        }
        Some(_) => Action::Updated,
        None if s.existed => Action::Updated,
        None => Action::Created,
    };
    if action != Action::Unchanged {
        servers.insert(NAME.into(), wanted);
        write(&path, &s)?;
    }
    Ok(Change {
        path,
        action,
        detail: format!("the {NAME} MCP server for {agent}"),
    })
}

/// Takes init's server entry (and an `mcpServers` left empty) out of a
/// settings object; true when there was one.
pub(super) fn strip_server(obj: &mut Map<String, Value>) -> bool {
    let Some(servers) = obj.get_mut("mcpServers").and_then(Value::as_object_mut) else {
        return false;
    };
    if !servers.get(NAME).is_some_and(is_ours) {
        return false;
    }
    servers.shift_remove(NAME);
    if servers.is_empty() {
        obj.shift_remove("mcpServers");
    }
    true
}

pub(super) fn unregister(base: &Path, agent: Agent) -> Result<Option<Change>> {
    let Some(file) = file(agent) else {
        return Ok(None);
    };
    let path = base.join(file);
    if !path.exists() {
        return Ok(None);
    }
    if let McpConfig::Toml { .. } = agent.description().install.mcp {
        return unregister_toml(&path, agent);
    }
    let mut s = read(&path)?;
    let obj = s.value.as_object_mut().expect("checked on read");
    if !strip_server(obj) {
        return Ok(None);
    }
    let detail = format!("the {NAME} MCP server for {agent}");
    if obj.is_empty() {
        std::fs::remove_file(&path).at("cannot remove", &path)?;
        // `.cursor/` or `.gemini/` when it held nothing else; never the
        // project (or home) itself, where `.mcp.json` lives.
        if let Some(dir) = path.parent().filter(|d| *d != base) {
            let _ = std::fs::remove_dir(dir);
        }
        return Ok(Some(Change {
            path,
            action: Action::Removed,
            detail,
        }));
    }
    write(&path, &s)?;
    Ok(Some(Change {
        path,
        action: Action::Updated,
        detail: format!("removed {detail}"),
    }))
}

fn toml_block(program: &str) -> String {
    let quoted = serde_json::to_string(program).expect("a string serialises");
    format!("{TOML_MARKER}\n[mcp_servers.{NAME}]\ncommand = {quoted}\nargs = [\"mcp\"]\n")
}

fn register_toml(path: &Path, agent: Agent, program: &str) -> Result<Change> {
    let block = toml_block(program);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io("cannot read", path, e)),
    };
    let old = text.clone().unwrap_or_default();
    let detail = format!("the {NAME} MCP server for {agent}");
    let (action, new) = if old.contains(&block) {
        (Action::Unchanged, old)
    } else if let Some(start) = old.find(TOML_MARKER) {
        // Ours, written for another program: replace the four lines.
        let end = old[start..]
            .match_indices('\n')
            .nth(3)
            .map_or(old.len(), |(i, _)| start + i + 1);
        (
            Action::Updated,
            format!("{}{block}{}", &old[..start], &old[end..]),
        )
    } else if defines_toml_server(&old) {
        return Ok(Change {
            path: path.to_path_buf(),
            action: Action::Kept,
            detail: format!("an MCP server of your own is named {NAME}; left as it is"),
        });
    } else {
        let sep = if old.is_empty() || old.ends_with("\n\n") {
            ""
        } else if old.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        };
        let action = if text.is_some() {
            Action::Updated
        } else {
            Action::Created
        };
        (action, format!("{old}{sep}{block}"))
    };
    if action != Action::Unchanged {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at("cannot create folder", dir)?;
        }
        write_atomic(path, new.as_bytes())?;
    }
    Ok(Change {
        path: path.to_path_buf(),
        action,
        detail,
    })
}

/// Whether a TOML config already defines a server named thehook, in any
/// TOML spelling (`[mcp_servers.thehook]`, a quoted name, a dotted or inline
/// key under `[mcp_servers]`).
fn defines_toml_server(toml: &str) -> bool {
    toml.lines().any(|line| {
        let line: String = line
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'')
            .collect();
        line.starts_with(&format!("[mcp_servers.{NAME}]"))
            || line.starts_with(&format!("[mcp_servers.{NAME}."))
            || line.starts_with(&format!("mcp_servers.{NAME}"))
            || line.starts_with(&format!("{NAME}="))
            || line.starts_with(&format!("{NAME}."))
    })
}

fn unregister_toml(path: &Path, agent: Agent) -> Result<Option<Change>> {
    let old = std::fs::read_to_string(path).at("cannot read", path)?;
    let Some(start) = old.find(TOML_MARKER) else {
        return Ok(None);
    };
    let end = old[start..]
        .match_indices('\n')
        .nth(3)
        .map_or(old.len(), |(i, _)| start + i + 1);
    let new = format!("{}{}", &old[..start], &old[end..]);
    let new = new.trim_end().to_string();
    let detail = format!("the {NAME} MCP server for {agent}");
    if new.is_empty() {
        std::fs::remove_file(path).at("cannot remove", path)?;
        return Ok(Some(Change {
            path: path.to_path_buf(),
            action: Action::Removed,
            detail,
        }));
    }
    write_atomic(path, format!("{new}\n").as_bytes())?;
    Ok(Some(Change {
        path: path.to_path_buf(),
        action: Action::Updated,
        detail: format!("removed {detail}"),
    }))
}
