//! Trust an agent keeps outside its settings file, for the hooks init
//! wrote (each agent's spec says what, [`HookTrust`]): Codex runs a project hook only once `[hooks.state."<key>"]
//! trusted_hash` in its `config.toml` matches the hook. Init writes those
//! entries (the user asked for the hooks by running it), uninstall takes
//! exactly them out again; the rest of the file keeps its bytes.

use std::path::Path;

use toml_edit::{DocumentMut, Item, Table};

use super::{Action, Change};
use crate::agents::spec::HookTrust;
use crate::error::{Error, IoContext, Result};
use crate::store::write_atomic;

/// Records each hook's hash; `None` when there is nothing to trust.
pub(super) fn trust(t: &HookTrust) -> Result<Option<Change>> {
    if t.entries.is_empty() {
        return Ok(None);
    }
    let (mut doc, existed) = read(t)?;
    let state = state_table(&mut doc, &t.file)?;
    let mut changed = 0;
    for (key, hash) in &t.entries {
        let entry = state
            .entry(key)
            .or_insert_with(|| Item::Table(Table::new()))
            .as_table_mut()
            .ok_or_else(|| not_a_table(&t.file, &format!("hooks.state.\"{key}\"")))?;
        if entry.get("trusted_hash").and_then(Item::as_str) != Some(hash) {
            entry.insert("trusted_hash", toml_edit::value(hash.as_str()));
            changed += 1;
        }
    }
    if changed == 0 {
        return Ok(Some(change(
            t,
            Action::Unchanged,
            &format!("thehook's {} hooks already trusted", t.agent.display_name()),
        )));
    }
    write_atomic(&t.file, doc.to_string().as_bytes())?;
    let action = if existed {
        Action::Updated
    } else {
        Action::Created
    };
    let detail = format!(
        "trusted {changed} thehook hook(s) by hash ({} runs no hook it has not trusted)",
        t.agent.display_name()
    );
    Ok(Some(change(t, action, &detail)))
}

/// Takes the entries of `t` out; `None` when none was there.
pub(super) fn untrust(t: &HookTrust) -> Result<Option<Change>> {
    if t.entries.is_empty() || !t.file.exists() {
        return Ok(None);
    }
    let (mut doc, _) = read(t)?;
    let Some(state) = doc
        .get_mut("hooks")
        .and_then(|h| h.get_mut("state"))
        .and_then(Item::as_table_like_mut)
    else {
        return Ok(None);
    };
    let removed = t
        .entries
        .iter()
        .filter(|(key, _)| state.remove(key).is_some())
        .count();
    if removed == 0 {
        return Ok(None);
    }
    // Tables that held only thehook's entries go too.
    if state.is_empty() {
        let hooks = doc["hooks"].as_table_like_mut().expect("held `state`");
        hooks.remove("state");
        if hooks.is_empty() {
            doc.remove("hooks");
        }
    }
    let detail = format!("trust of {removed} thehook hook(s) removed");
    let text = doc.to_string();
    if text.trim().is_empty() {
        // Init created the file for these entries alone.
        std::fs::remove_file(&t.file).at("cannot remove", &t.file)?;
        return Ok(Some(change(t, Action::Removed, &detail)));
    }
    write_atomic(&t.file, text.as_bytes())?;
    Ok(Some(change(t, Action::Updated, &detail)))
}

/// Which of the entries of `t` are not trusted as they are now:
/// (key, `untrusted` or `modified`).
pub(crate) fn untrusted(t: &HookTrust) -> Vec<(String, &'static str)> {
    let doc = read(t).map(|(d, _)| d).unwrap_or_default();
    let state = doc.get("hooks").and_then(|h| h.get("state"));
    t.entries
        .iter()
        .filter_map(|(key, hash)| {
            let stored = state.and_then(|s| s.get(key)?.get("trusted_hash")?.as_str());
            match stored {
                Some(s) if s == hash => None,
                Some(_) => Some((key.clone(), "modified")),
                None => Some((key.clone(), "untrusted")),
            }
        })
        .collect()
}

fn read(t: &HookTrust) -> Result<(DocumentMut, bool)> {
    let path = &t.file;
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((DocumentMut::new(), false))
        }
        Err(e) => return Err(Error::io("cannot read", path, e)),
    };
    let doc = text.parse::<DocumentMut>().map_err(|e| Error::Settings {
        path: path.to_path_buf(),
        problem: format!("is not valid TOML: {e}"),
        source: crate::error::cause(e),
        fix: format!(
            "fix the file ({} cannot read it either), then run the command again",
            t.agent.display_name()
        )
        .into(),
    })?;
    Ok((doc, true))
}

/// `hooks.state`, created as implicit tables (no `[hooks]` header of its own).
fn state_table<'d>(doc: &'d mut DocumentMut, path: &Path) -> Result<&'d mut Table> {
    let hooks = doc
        .entry("hooks")
        .or_insert_with(implicit_table)
        .as_table_mut()
        .ok_or_else(|| not_a_table(path, "hooks"))?;
    hooks
        .entry("state")
        .or_insert_with(implicit_table)
        .as_table_mut()
        .ok_or_else(|| not_a_table(path, "hooks.state"))
}

fn implicit_table() -> Item {
    let mut t = Table::new();
    t.set_implicit(true);
    Item::Table(t)
}

fn not_a_table(path: &Path, key: &str) -> Error {
    Error::Settings {
        path: path.to_path_buf(),
        problem: format!("`hooks.state.\"{key}\"` is not a table"),
        source: None,
        fix: "make it a table (`[hooks.state.\"...\"]`) or delete it, then run the command again"
            .into(),
    }
}

fn change(t: &HookTrust, action: Action, detail: &str) -> Change {
    Change {
        path: t.file.clone(),
        action,
        detail: detail.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust_for(file: &Path) -> HookTrust {
        HookTrust {
            agent: crate::agents::Agent::Codex,
            file: file.to_path_buf(),
            entries: vec![
                (
                    "/p/.codex/hooks.json:session_start:0:0".into(),
                    "sha256:aa".into(),
                ),
                (
                    "/p/.codex/hooks.json:session_end:0:0".into(),
                    "sha256:bb".into(),
                ),
            ],
        }
    }

    #[test]
    fn trust_then_untrust_gives_back_the_users_file_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let users = "model = \"gpt-5\"  # mine\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"/q/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:cc\"\n";
        std::fs::write(&file, users).unwrap();
        let t = trust_for(&file);
        assert_eq!(trust(&t).unwrap().unwrap().action, Action::Updated);
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(written.starts_with(users), "{written}");
        assert!(untrusted(&t).is_empty(), "{written}");
        assert_eq!(trust(&t).unwrap().unwrap().action, Action::Unchanged);
        untrust(&t).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), users);
    }

    #[test]
    fn a_file_without_hooks_gets_its_tables_and_loses_them_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let users = "model = \"gpt-5\"\n";
        std::fs::write(&file, users).unwrap();
        let t = trust_for(&file);
        trust(&t).unwrap();
        insta::assert_snapshot!(std::fs::read_to_string(&file).unwrap(), @r#"
        model = "gpt-5"

        [hooks.state."/p/.codex/hooks.json:session_start:0:0"]
        trusted_hash = "sha256:aa"

        [hooks.state."/p/.codex/hooks.json:session_end:0:0"]
        trusted_hash = "sha256:bb"
        "#);
        untrust(&t).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), users);
    }

    #[test]
    fn a_changed_hook_reads_as_modified_and_a_missing_one_as_untrusted() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let mut t = trust_for(&file);
        trust(&t).unwrap();
        t.entries[0].1 = "sha256:changed".into();
        t.entries
            .push(("/p/.codex/hooks.json:stop:0:0".into(), "sha256:dd".into()));
        let states: Vec<_> = untrusted(&t).into_iter().map(|(_, s)| s).collect();
        assert_eq!(states, ["modified", "untrusted"]);
    }

    #[test]
    fn a_config_codex_could_not_use_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        for users in ["[hooks]\nstate = \"oops\"\n", "model = \"unclosed\n"] {
            std::fs::write(&file, users).unwrap();
            let e = trust(&trust_for(&file)).unwrap_err().to_string();
            assert!(e.contains("config.toml") && e.contains("fix:"), "{e}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), users);
        }
    }
}
