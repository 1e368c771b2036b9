//! `thehook doctor`: checks the install and the project, one finding per
//! check, each problem with its fix. Never modifies markdown.

use std::path::Path;

use serde::Serialize;

use crate::config::Config;
use crate::error::{fix, Fix, Step};
use crate::memory::index::check_data_file;
use crate::memory::{SyncPolicy, NO_PROGRESS};
use crate::model::{
    self, locate, Availability, EmbeddingCache, SearchPaths, Workload, MAX_VECTORS, ORT_LIB,
};
use crate::project::Project;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warn,
    Error,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub level: Level,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

fn ok(name: &'static str, detail: String) -> Check {
    Check {
        name,
        level: Level::Ok,
        detail,
        fix: None,
    }
}
fn warn(name: &'static str, detail: String, fix: impl Into<Fix>) -> Check {
    Check {
        name,
        level: Level::Warn,
        detail,
        fix: Some(fix.into()),
    }
}
fn error(name: &'static str, detail: String, fix: impl Into<Fix>) -> Check {
    Check {
        name,
        level: Level::Error,
        detail,
        fix: Some(fix.into()),
    }
}

/// Runs every check for the project at `root`, in the order they print.
pub fn doctor(root: &Path, paths: &SearchPaths) -> Vec<Check> {
    let project = Project::at(root);
    let mut checks = vec![project_check(&project)];
    let config = config_checks(&project, &mut checks);
    checks.push(llm_check(&config));
    checks.extend(model_checks(&config, paths));
    checks.push(index_check(&project));
    if project.dir().is_dir() {
        checks.push(permissions_check(&project));
    }
    checks.push(hooks_check(root));
    checks.extend(installed_checks(root, crate::env::path_var().as_deref()));
    checks.extend(optional_hook_checks(root, &config.retrieval));
    if project.dir().is_dir() {
        checks.push(merge_check(&project));
        checks.push(withheld_check(root, paths));
        checks.push(authors_check(root));
    }
    if let Some(home) = crate::env::home() {
        checks.extend(trust_checks(root, &home));
    }
    checks
}

/// What the safety rules withhold from agents, as last indexed.
fn withheld_check(root: &Path, paths: &SearchPaths) -> Check {
    // Opening a damaged index would rebuild it; doctor only reports.
    let data = Project::at(root).index_dir().join("data.mdb");
    if data.exists() && check_data_file(&data).is_err() {
        return warn(
            "safety",
            "memory not checked: the index is damaged (see above)".into(),
            fix!(Step::Reindex),
        );
    }
    let found =
        crate::memory::Memory::open(&Project::at(root), paths, false).and_then(|mut memory| {
            // Every file listed: doctor is where an edit in place is looked for.
            memory.sync(SyncPolicy::HOOK_EVERY_FILE, NO_PROGRESS)?;
            crate::memory::withheld::entries(memory.index())
        });
    match found {
        Ok(entries) if entries.is_empty() => ok(
            "safety",
            "no item of memory breaks a safety rule: all of it may reach agents".into(),
        ),
        Ok(entries) => warn(
            "safety",
            format!(
                "{} item(s) of memory break a safety rule and are withheld from agents (planted instructions, remote code, credential reads...)",
                entries.len()
            ),
            fix!(Step::Review, " to release or forget each"),
        ),
        Err(e) => warn("safety", format!("memory not checked: {e}"), fix!(Step::Reindex)),
    }
}

/// Whether git can tell who wrote memory: where it cannot, action lines no
/// build file vouches for are withheld (`policy::verify`).
fn authors_check(root: &Path) -> Check {
    match crate::policy::trust::git_cannot_tell(root) {
        None => ok(
            "authors",
            "git tells who wrote each line of memory; the project's own authors are trusted".into(),
        ),
        Some(why) => warn(
            "authors",
            format!("{why}: action lines no build file vouches for are withheld from agents"),
            "work in a full git clone, or confirm such lines with `thehook review release <id>`",
        ),
    }
}

/// Whether the project has memory, and a usable `.thehook/`.
fn project_check(project: &Project) -> Check {
    let root = project.root().display();
    match project.check_layout() {
        Ok(true) => ok("project", format!("{root} holds .thehook/")),
        Ok(false) => warn(
            "project",
            format!("{root} has no .thehook/ folder yet"),
            fix!(Step::Remember, " in the project to start its memory"),
        ),
        Err(e) => error("project", e.to_string(), "see above"),
    }
}

/// The config's warnings and whether it loads; the config the other checks
/// use (the defaults when it does not load).
fn config_checks(project: &Project, checks: &mut Vec<Check>) -> Config {
    match Config::load(&project.config_path()) {
        Ok(loaded) => {
            for w in &loaded.warnings {
                checks.push(warn("config", w.clone(), "remove or rename the key"));
            }
            checks.push(ok(
                "config",
                format!("{} is valid", project.relative(&project.config_path())),
            ));
            loaded.config
        }
        Err(e) => {
            checks.push(error("config", e.to_string(), "fix the value named above"));
            Config::default()
        }
    }
}

/// Which LLM CLI distils captures, if any.
fn llm_check(config: &Config) -> Check {
    let path_var = crate::env::path_var();
    match crate::capture::llm::resolve(&config.llm, path_var.as_deref(), None) {
        Ok(cmd) => ok(
            "llm",
            format!(
                "captures are distilled by {} ({})",
                cmd.program.display(),
                cmd.label
            ),
        ),
        Err(why) => warn(
            "llm",
            format!(
                "{why}: sessions are captured from the transcript alone (`extracted: heuristic`)"
            ),
            fix!(
                format!(
                    "install {}, or set `llm.cli: command`; then ",
                    crate::agents::distill_cli_titles()
                ),
                Step::RetryCaptures
            ),
        ),
    }
}

/// The model, ONNX Runtime, and whether both embed (items and queries).
fn model_checks(config: &Config, paths: &SearchPaths) -> Vec<Check> {
    let availability = locate(config, paths);
    let (model_dir, runtime) = match &availability {
        Availability::Ready {
            model_dir, runtime, ..
        } => (model_dir, runtime),
        Availability::Missing { reason, fix } => {
            return vec![warn(
                "embeddings",
                format!("{reason}: search is lexical-only (BM25)"),
                fix.to_string(),
            )]
        }
    };
    let mut checks = vec![
        ok(
            "model",
            format!("{} ({})", model_dir.path.display(), model_dir.source),
        ),
        ok(
            "onnx runtime",
            match runtime {
                Some(runtime) => format!("{} ({})", runtime.path.display(), runtime.source),
                None => format!(
                    "none ({ORT_LIB} was not found): the built-in encoder embeds items too, more slowly (docs/search.md, Model and ONNX Runtime)"
                ),
            },
        ),
    ];
    // Items are embedded by ONNX Runtime, queries by the built-in encoder
    // when it knows the model: both are checked.
    let run = |workload| {
        model::load(&availability, 1, workload).and_then(|mut e| {
            let vector = e.embed_one("doctor check")?;
            Ok((vector.len(), e.engine()))
        })
    };
    checks.push(
        match run(Workload::Bulk).and_then(|items| Ok((items, run(Workload::Query)?))) {
            Ok(((dims, items), (_, queries))) => ok(
                "embeddings",
                format!("the model runs ({dims} dimensions; items: {items}, queries: {queries})"),
            ),
            Err(e) => error(
                "embeddings",
                e.to_string(),
                "search keeps working lexical-only until this is fixed",
            ),
        },
    );
    checks.push(embedding_cache_check(&availability));
    checks
}

/// Where the embedding cache is and how much it holds.
fn embedding_cache_check(availability: &Availability) -> Check {
    let Some(dir) = availability.embedding_cache() else {
        return ok(
            "embedding cache",
            "off (THEHOOK_EMBEDDING_CACHE=off, or no user cache folder): every clone embeds its own items".into(),
        );
    };
    match EmbeddingCache::open(dir).and_then(|c| c.size(dir)) {
        Ok(size) => ok(
            "embedding cache",
            format!(
                "{} vectors, {:.1} MB in {} (at most {MAX_VECTORS} kept; THEHOOK_CACHE_DIR moves it)",
                size.vectors,
                size.bytes as f64 / 1e6,
                dir.display()
            ),
        ),
        Err(e) => warn(
            "embedding cache",
            e.to_string(),
            "clones and worktrees embed their own items until it opens",
        ),
    }
}

/// Whether the index's data file is consistent (a damaged one is rebuilt).
fn index_check(project: &Project) -> Check {
    let data = project.index_dir().join("data.mdb");
    match check_data_file(&data) {
        Ok(()) if data.exists() => ok(
            "index",
            format!("{} is consistent", project.relative(&data)),
        ),
        Ok(()) => ok("index", "not built yet; the next command builds it".into()),
        Err(why) => warn(
            "index",
            format!("{} is damaged: {why}", project.relative(&data)),
            fix!(
                "nothing to do: the next command rebuilds it from markdown (or ",
                Step::Reindex,
                ")"
            ),
        ),
    }
}

/// Whether this user can write in `.thehook/`.
fn permissions_check(project: &Project) -> Check {
    let probe = tempfile::Builder::new()
        .prefix(".thehook-doctor-")
        .tempfile_in(project.dir());
    match probe {
        Ok(_) => ok(
            "permissions",
            format!("{} is writable", project.relative(&project.dir())),
        ),
        Err(e) => error(
            "permissions",
            format!("cannot write in {}: {e}", project.dir().display()),
            format!("make {} writable by this user", project.dir().display()),
        ),
    }
}

/// Whether git merges teammates' memory by union (`.thehook/.gitattributes`).
fn merge_check(project: &Project) -> Check {
    let path = project.dir().join(".gitattributes");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let unions = |name: &str| {
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == [name, "merge=union"])
    };
    if ["knowledge/*.md", "consolidated.txt", "confirmed.txt"]
        .iter()
        .all(|name| unions(name))
    {
        return ok(
            "team merges",
            ".thehook/.gitattributes merges knowledge by union: teammates never conflict".into(),
        );
    }
    let fix = if text.is_empty() {
        fix!(Step::Init, " (it writes the file), then commit it")
    } else {
        "add the lines `knowledge/*.md merge=union`, `consolidated.txt merge=union` and \
         `confirmed.txt merge=union` to it, then commit it"
            .into()
    };
    warn(
        "team merges",
        format!(
            "{} does not ask git to merge knowledge/*.md, consolidated.txt and confirmed.txt by union: \
             teammates who consolidate in parallel will conflict",
            project.relative(&path)
        ),
        fix,
    )
}

/// For each agent wired here that gates project hooks: is the project
/// trusted, and (Codex) is each of thehook's hooks trusted as it is now?
fn trust_checks(root: &Path, home: &Path) -> Vec<Check> {
    let mut checks = Vec::new();
    for agent in crate::agents::Agent::ALL {
        if !agent.runs_thehook(root) {
            continue;
        }
        let spec = agent.spec();
        match spec.project_trusted(root, home) {
            Some(false) => checks.push(warn(
                "trust",
                format!("{agent} does not trust this project, so it runs none of its hooks"),
                spec.trust_advice(root),
            )),
            Some(true) => checks.push(ok("trust", format!("{agent} trusts this project"))),
            None => {}
        }
        let path = root.join(agent.settings_file());
        let Some(hooks) = crate::setup::init::hook_trust(agent, &path, home) else {
            continue;
        };
        let untrusted = crate::setup::init::trust::untrusted(&hooks);
        if untrusted.is_empty() {
            continue;
        }
        let list: Vec<String> = untrusted
            .iter()
            .map(|(k, s)| format!("{k} ({s})"))
            .collect();
        checks.push(warn(
            "hook trust",
            format!("{agent} skips thehook hooks it has not trusted as they are now: {}", list.join(", ")),
            format!("run `thehook init --agent {}` again (it records their hashes in {}), or trust them in {agent}'s /hooks screen", agent.short_name(), hooks.file.display()),
        ));
    }
    checks
}

/// One of the hooks a setting turns on and off: the prompt hook, the file hook.
struct OptionalHook {
    /// The check's name (`prompt hook`).
    name: &'static str,
    /// Its thehook command (`prompt`).
    sub: &'static str,
    /// Its setting (`retrieval.on_prompt`) and whether it is on.
    key: &'static str,
    on: bool,
    /// When it runs, for the message (`at each prompt`).
    when: &'static str,
    /// Whether `agent` can take it at all.
    takes: fn(crate::agents::Agent) -> bool,
}

/// For each agent wired here that can take them: are the prompt, file and
/// subagent hooks there, as `retrieval.on_prompt` and `retrieval.on_file`
/// want them (the subagent hook always)?
fn optional_hook_checks(root: &Path, retrieval: &crate::config::Retrieval) -> Vec<Check> {
    let hooks = [
        OptionalHook {
            name: "prompt hook",
            sub: "prompt",
            key: "retrieval.on_prompt",
            on: retrieval.on_prompt,
            when: "at each prompt",
            takes: |a| a.description().protocol.prompt.adds_context(),
        },
        OptionalHook {
            name: "file hook",
            sub: "file",
            key: "retrieval.on_file",
            on: retrieval.on_file,
            when: "at each file it reads or edits",
            takes: |a| a.description().protocol.file.adds_context(),
        },
        // Wired wherever the agent has the event; `retrieval.subagents`
        // decides per type what it gives.
        OptionalHook {
            name: "subagent hook",
            sub: "subagent",
            key: "retrieval.subagents",
            on: true,
            when: "when a subagent starts",
            takes: |a| a.description().protocol.subagent.adds_context(),
        },
    ];
    let mut checks = Vec::new();
    for hook in &hooks {
        for agent in crate::agents::Agent::ALL {
            if !agent.runs_thehook(root) || !(hook.takes)(agent) {
                continue;
            }
            let file = agent.settings_file().to_string_lossy().replace('\\', "/");
            let again = |what: &str| {
                format!(
                    "run `thehook init --agent {}` again to {what}",
                    agent.short_name()
                )
            };
            match (hook.on, agent.runs_hook(root, hook.sub)) {
                (true, true) => checks.push(ok(hook.name, format!("{agent}: wired in {file}"))),
                (true, false) => checks.push(warn(
                    hook.name,
                    format!(
                        "{agent} runs thehook at session start and end but not {}",
                        hook.when
                    ),
                    again("add it"),
                )),
                (false, true) => checks.push(warn(
                    hook.name,
                    format!(
                        "{agent} runs the {}, but {} is off: it adds nothing",
                        hook.name, hook.key
                    ),
                    again("take it out"),
                )),
                (false, false) => {}
            }
        }
    }
    checks
}

/// For each agent wired here: is its program on PATH? Not a problem when it
/// is not (an agent may run from an app with a PATH of its own), so said,
/// not warned.
fn installed_checks(root: &Path, path_var: Option<&std::ffi::OsStr>) -> Vec<Check> {
    crate::agents::Agent::ALL
        .into_iter()
        .filter(|agent| agent.runs_thehook(root))
        .map(|agent| {
            let found = agent
                .binaries()
                .iter()
                .find_map(|b| path_var.and_then(|p| crate::env::find_on_path(p, b)));
            let detail = match found {
                Some(program) => format!("{}: {}", agent.display_name(), program.display()),
                None => format!(
                    "{}: `{}` is not on PATH here (fine if it runs from an app of its own)",
                    agent.display_name(),
                    agent.binaries()[0]
                ),
            };
            ok("agent", detail)
        })
        .collect()
}

fn hooks_check(root: &Path) -> Check {
    let wired = crate::agents::hooks_wired(root);
    if wired.is_empty() {
        warn(
            "hooks",
            "no agent runs thehook at session start or end in this project".into(),
            fix!(
                Step::Init,
                " here (or `thehook init --global` once for every project)"
            ),
        )
    } else {
        ok("hooks", format!("wired in {}", wired.join(", ")))
    }
}
