//! Merging thehook's hook entries into an agent's settings JSON, and taking
//! them out again.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::json_file::{read, write};
use super::{Action, Change, InitOptions};
use crate::agents::spec::{HookCommands, HookSpec, Wired};
use crate::agents::{is_thehook_command, is_thehook_program, shell, Agent};
use crate::error::{Error, IoContext, Result};

/// The hook commands of `agent`, as init writes them.
pub(super) fn commands(agent: Agent, o: &InitOptions) -> HookCommands<'_> {
    let inject_on = o.inject_on.iter().map(|s| s.as_str()).collect();
    let on = Wired {
        prompt: o.on_prompt,
        file: o.on_file,
    };
    HookCommands::new(agent, &o.hook_bin, on, inject_on)
}

/// A hook's entry in the settings: in a matcher group when the agent
/// `nested` its handlers, else the handler itself.
fn entry(spec: &HookSpec, nested: bool) -> Value {
    if !nested {
        return spec.handler.clone();
    }
    let mut group = Map::new();
    if let Some(m) = &spec.matcher {
        group.insert("matcher".into(), json!(m));
    }
    group.insert("hooks".into(), json!([spec.handler]));
    Value::Object(group)
}

/// The hooks init writes for `agent`, with the command each runs.
fn specs(agent: Agent, o: &InitOptions) -> Vec<HookSpec> {
    agent.spec().hooks(&commands(agent, o))
}

/// Permission rules that let the retrieval subagent run thehook's read-only
/// commands without a prompt (Claude Code only; its `:*` prefix syntax).
/// With the MCP server registered, its three tools too.
fn allow_rules(agent: Agent, o: &InitOptions) -> Vec<Value> {
    if !agent.description().install.takes_permission_rules {
        return Vec::new();
    }
    let program = agent.shell().program(&o.hook_bin);
    let mut rules: Vec<Value> = READ_ONLY
        .iter()
        .map(|sub| json!(format!("Bash({program} {sub}:*)")))
        .collect();
    if o.mcp {
        rules.extend(
            READ_ONLY
                .iter()
                .map(|sub| json!(format!("mcp__thehook__{sub}"))),
        );
    }
    rules
}

/// The commands (and MCP tools) that only read memory and past sessions.
const READ_ONLY: [&str; 3] = ["recall", "sessions", "read"];

/// Whether a permission rule is one of [`allow_rules`], whatever path it
/// was written with.
fn is_our_rule(rule: &Value) -> bool {
    let mcp_tool = rule
        .as_str()
        .and_then(|r| r.strip_prefix("mcp__thehook__"))
        .is_some_and(|tool| READ_ONLY.contains(&tool));
    if mcp_tool {
        return true;
    }
    let Some(command) = rule
        .as_str()
        .and_then(|r| r.strip_prefix("Bash("))
        .and_then(|r| r.strip_suffix(":*)"))
    else {
        return false;
    };
    match shell::words(command).as_slice() {
        [program, sub] => is_thehook_program(program) && READ_ONLY.contains(&sub.as_str()),
        _ => false,
    }
}

/// Whether a handler runs thehook: its `command`, or the `bash` or
/// `powershell` one (Copilot CLI).
fn is_ours(handler: &Value) -> bool {
    ["command", "bash", "powershell"].iter().any(|key| {
        handler
            .get(*key)
            .and_then(Value::as_str)
            .is_some_and(is_thehook_command)
    })
}

/// The `.bak` beside a settings file.
fn backup_path(path: &Path) -> std::path::PathBuf {
    let mut name = path.file_name().expect("a file").to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

fn section<'a>(path: &Path, root: &'a mut Value, key: &str) -> Result<&'a mut Map<String, Value>> {
    let obj = root.as_object_mut().expect("checked on read");
    let entry = obj.entry(key).or_insert_with(|| Value::Object(Map::new()));
    entry.as_object_mut().ok_or_else(|| Error::Settings {
        path: path.to_path_buf(),
        problem: format!("`{key}` is not an object"),
        source: None,
        fix: format!("make `{key}` an object, or move the file away, then run the command again")
            .into(),
    })
}

/// Puts thehook's hooks into the settings file at `path`.
pub(super) fn wire(path: &Path, agent: Agent, o: &InitOptions) -> Result<Change> {
    let mut s = read(path)?;
    // What the file holds besides thehook's hooks decides whether to back it up.
    let mut others = s.value.clone();
    strip(&mut others, agent);
    if let Some(version) = agent.description().install.settings_version {
        let obj = s.value.as_object_mut().expect("an object");
        obj.entry("version").or_insert(json!(version));
    }
    let hooks = section(path, &mut s.value, "hooks")?;
    let mut added: Vec<String> = Vec::new();
    let specs = specs(agent, o);
    // A hook the settings turned off (`retrieval.on_prompt`, `on_file`)
    // since the last init goes.
    let nested = agent.description().install.nests_handlers;
    for (event, list) in hooks.iter_mut() {
        let wanted = specs.iter().any(|spec| spec.event == event);
        if let (false, Some(list)) = (wanted, list.as_array_mut()) {
            if remove_ours(list, nested) > 0 {
                added.push(format!("{event} taken out"));
            }
        }
    }
    hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    // An event may hold several of thehook's handlers (Claude Code's
    // PreToolUse: the file tools, and the tools that start a subagent).
    let mut events: Vec<&'static str> = Vec::new();
    for spec in &specs {
        if !events.contains(&spec.event) {
            events.push(spec.event);
        }
    }
    for event in events {
        let list = hooks.entry(event).or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            return Err(Error::Settings {
                path: path.to_path_buf(),
                problem: format!("`hooks.{event}` is not a list"),
                source: None,
                fix: "make it a list of hooks, then run the command again".into(),
            });
        };
        let wanted: Vec<Value> = specs
            .iter()
            .filter(|spec| spec.event == event)
            .map(|spec| entry(spec, nested))
            .collect();
        let ours = count_ours(list, nested);
        if ours == wanted.len() && wanted.iter().all(|w| list.contains(w)) {
            continue;
        }
        remove_ours(list, nested);
        list.extend(wanted);
        added.push(event.to_string());
    }
    let rules = allow_rules(agent, o);
    if !rules.is_empty() {
        let permissions = section(path, &mut s.value, "permissions")?;
        let allow = permissions.entry("allow").or_insert_with(|| json!([]));
        let Some(allow) = allow.as_array_mut() else {
            return Err(Error::Settings {
                path: path.to_path_buf(),
                problem: "`permissions.allow` is not a list".into(),
                source: None,
                fix: "make it a list of permission rules, then run the command again".into(),
            });
        };
        // Ours: recognised by program name, or exactly what init writes now
        // (a `--bin` with another file name).
        let is_ours = |r: &Value| is_our_rule(r) || rules.contains(r);
        let ours: Vec<&Value> = allow.iter().filter(|r| is_ours(r)).collect();
        if ours != rules.iter().collect::<Vec<_>>() {
            allow.retain(|r| !is_ours(r));
            allow.extend(rules);
            added.push("permissions".into());
        }
    }
    if added.is_empty() {
        return Ok(Change {
            path: path.to_path_buf(),
            action: Action::Unchanged,
            detail: format!("{} hooks already in place", agent),
        });
    }
    let backup = backup_path(path);
    let mut detail = format!("{} hooks: {}", agent, added.join(", "));
    if s.existed && !backup.exists() && !is_empty_settings(&others, agent) {
        std::fs::copy(path, &backup).at("cannot back up", path)?;
        detail.push_str(&format!(
            " (the original is in {})",
            backup.file_name().unwrap().to_string_lossy()
        ));
    }
    write(path, &s)?;
    Ok(Change {
        path: path.to_path_buf(),
        action: if s.existed {
            Action::Updated
        } else {
            Action::Created
        },
        detail,
    })
}

fn count_ours(list: &[Value], nested: bool) -> usize {
    if nested {
        list.iter()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter(|h| is_ours(h))
            .count()
    } else {
        list.iter().filter(|h| is_ours(h)).count()
    }
}

/// Drops thehook's handlers, and the groups that held nothing else.
/// Returns how many handlers went.
fn remove_ours(list: &mut Vec<Value>, nested: bool) -> usize {
    let before = count_ours(list, nested);
    if nested {
        list.retain_mut(|group| {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let had = handlers.len();
            handlers.retain(|h| !is_ours(h));
            !(handlers.is_empty() && had > 0)
        });
    } else {
        list.retain(|h| !is_ours(h));
    }
    before
}

/// Takes thehook's hooks out of the settings file at `path`. A file init
/// created is deleted once nothing else is in it; the `.bak` goes when the
/// file is back to what it held.
pub(super) fn unwire(path: &Path, agent: Agent) -> Result<Option<Change>> {
    if !path.exists() {
        return Ok(None);
    }
    let mut s = read(path)?;
    let events = strip(&mut s.value, agent);
    if events.is_empty() {
        return Ok(None);
    }
    let backup = backup_path(path);
    let backed_up = std::fs::read_to_string(&backup)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok());
    // The original as it was before thehook's first change (an older init
    // may have backed up a file that already held thehook's hooks).
    let original = backed_up.clone().map(|mut v| {
        strip(&mut v, agent);
        v
    });
    let detail = format!("{} hooks: {}", agent, events.join(", "));
    if original
        .as_ref()
        .is_none_or(|o| is_empty_settings(o, agent))
        && is_empty_settings(&s.value, agent)
    {
        std::fs::remove_file(path).at("cannot remove", path)?;
        let _ = std::fs::remove_file(&backup);
        if let Some(dir) = path.parent() {
            let _ = std::fs::remove_dir(dir);
        }
        return Ok(Some(Change {
            path: path.to_path_buf(),
            action: Action::Removed,
            detail: format!("{detail} (init had created it)"),
        }));
    }
    let mut detail = format!("removed {detail}");
    if backed_up.as_ref() == Some(&s.value) {
        // Back to what the backup holds: its bytes, so the user's formatting
        // (indentation, one-line arrays) comes back too.
        std::fs::rename(&backup, path).at("cannot restore", path)?;
        detail.push_str("; back to the original, restored from its .bak");
        return Ok(Some(Change {
            path: path.to_path_buf(),
            action: Action::Updated,
            detail,
        }));
    }
    write(path, &s)?;
    if original.as_ref() == Some(&s.value) {
        std::fs::remove_file(&backup).at("cannot remove", &backup)?;
        detail.push_str("; back to the original, so its .bak was removed");
    } else if original.is_some() {
        detail.push_str(&format!(
            "; {} kept (it differs from the file now)",
            backup.file_name().unwrap_or_default().to_string_lossy()
        ));
    }
    Ok(Some(Change {
        path: path.to_path_buf(),
        action: Action::Updated,
        detail,
    }))
}

/// Takes thehook's handlers out of a settings value, and the groups, events
/// and `hooks` object that held nothing else. Returns the events touched.
fn strip(value: &mut Value, agent: Agent) -> Vec<String> {
    let Some(obj) = value.as_object_mut() else {
        return Vec::new();
    };
    let rules = strip_rules(obj);
    if super::mcp::file(agent) == Some(agent.settings_file()) {
        // MCP servers are kept in this file too (Gemini): init's is not the user's.
        super::mcp::strip_server(obj);
    }
    let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut) else {
        return rules;
    };
    let mut events = Vec::new();
    for (event, list) in hooks.iter_mut() {
        if let Some(list) = list.as_array_mut() {
            if remove_ours(list, agent.description().install.nests_handlers) > 0 {
                events.push(event.clone());
            }
        }
    }
    hooks.retain(|event, list| {
        !(events.contains(event) && list.as_array().is_some_and(Vec::is_empty))
    });
    if hooks.is_empty() && !events.is_empty() {
        obj.shift_remove("hooks");
    }
    events.extend(rules);
    events
}

/// Takes thehook's permission rules out, and the `allow` list and
/// `permissions` object when they held nothing else.
fn strip_rules(obj: &mut Map<String, Value>) -> Vec<String> {
    let Some(permissions) = obj.get_mut("permissions").and_then(Value::as_object_mut) else {
        return Vec::new();
    };
    let Some(allow) = permissions.get_mut("allow").and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    let before = allow.len();
    allow.retain(|r| !is_our_rule(r));
    if allow.len() == before {
        return Vec::new();
    }
    if allow.is_empty() {
        permissions.shift_remove("allow");
    }
    if permissions.is_empty() {
        obj.shift_remove("permissions");
    }
    vec!["permissions".into()]
}

/// Whether settings hold nothing but what init would start a new file with.
fn is_empty_settings(value: &Value, agent: Agent) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    obj.is_empty()
        || agent
            .description()
            .install
            .settings_version
            .is_some_and(|v| obj.len() == 1 && obj.get("version") == Some(&json!(v)))
}
