//! `.thehook/config.yaml`: defaults, validation with file/line/key/fix, unknown
//! keys as warnings, and `THEHOOK_*` environment overrides.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agents::Agent;
use crate::error::{Error, Result};

/// The whole configuration. Every field has a default, so an empty or absent
/// file is a valid configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Config {
    pub retrieval: Retrieval,
    pub capture: Capture,
    pub consolidation: Consolidation,
    pub llm: Llm,
    pub embedding: Embedding,
    pub mcp: Mcp,
    pub trust: Trust,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Retrieval {
    pub auto_inject: bool,
    pub inject_on: Vec<SessionSource>,
    pub token_budget: usize,
    pub max_results: usize,
    pub include: Vec<Include>,
    /// Earlier sessions named at session start ("Where you left off").
    pub left_off: usize,
    /// At each prompt, add memory relevant to it that the session was not
    /// given yet (the prompt hook).
    pub on_prompt: bool,
    /// At each file the agent reads or edits, add what memory knows about
    /// that file that the session was not given yet (the file hook).
    pub on_file: bool,
    /// The file hook answers a subagent's tool calls too, once per
    /// subagent (the agent reports which subagent makes a call).
    pub on_file_subagents: bool,
    /// What a subagent is given when it starts, by its type (`Explore`,
    /// `general-purpose`, `worker`), with `default` for the others.
    pub subagents: std::collections::BTreeMap<String, SubagentMode>,
    /// The most tokens a subagent is given when it starts.
    pub subagent_token_budget: usize,
}

/// What a subagent is given when it starts (`retrieval.subagents`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubagentMode {
    /// What memory holds on its task, then what a session start gives.
    Full,
    /// What memory holds on its task only.
    Task,
    /// Nothing.
    None,
}

impl Retrieval {
    /// The mode for a subagent of type `agent_type`: its own entry (any
    /// case), else `default`, else [`SubagentMode::Task`].
    pub fn subagent_mode(&self, agent_type: Option<&str>) -> SubagentMode {
        let own = agent_type.and_then(|t| {
            self.subagents
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(t))
                .map(|(_, mode)| *mode)
        });
        own.or_else(|| self.subagents.get(SUBAGENT_DEFAULT_KEY).copied())
            .unwrap_or(SubagentMode::Task)
    }
}

/// The key of `retrieval.subagents` for every type not named.
pub const SUBAGENT_DEFAULT_KEY: &str = "default";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionSource {
    Startup,
    Resume,
    Clear,
    Compact,
    /// A session forked from another (Claude Code 2.1: `--fork-session`);
    /// it carries its parent's conversation, injected memory included.
    Fork,
}

impl SessionSource {
    /// The name agents send in a session-start payload's `source`.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionSource::Startup => "startup",
            SessionSource::Resume => "resume",
            SessionSource::Clear => "clear",
            SessionSource::Compact => "compact",
            SessionSource::Fork => "fork",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Include {
    Conventions,
    Architecture,
    History,
    Sessions,
    Notes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Capture {
    pub enabled: bool,
    pub redact_secrets: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Consolidation {
    pub every_n_sessions: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Llm {
    pub cli: LlmCli,
    /// The model the CLI runs; `None`: its small one (Claude Code: `haiku`).
    pub model: Option<String>,
    pub command: Vec<String>,
    pub timeout_secs: u64,
    /// The most the LLM may be asked a day; past it captures are written
    /// from the transcript alone and wait for the next day's budget.
    pub daily_budget: DailyBudget,
}

/// A day's allowance of LLM calls (local time). `None` lifts a limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DailyBudget {
    pub calls: Option<u64>,
    /// Counts the cost the CLIs report; calls without one add nothing.
    pub usd: Option<f64>,
}

impl Default for DailyBudget {
    fn default() -> Self {
        DailyBudget {
            calls: Some(50),
            usd: Some(2.0),
        }
    }
}

/// `llm.cli`: which CLI distils sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmCli {
    /// The captured agent's own CLI, else the first one installed.
    Auto,
    /// An agent's CLI, by the name its spec gives it (`claude`, `cursor-agent`).
    Agent(Agent),
    /// `llm.command`'s argv.
    Command,
}

impl LlmCli {
    /// Every value `llm.cli` takes, in the order they are listed.
    pub fn all() -> Vec<LlmCli> {
        let agents = Agent::ALL.into_iter().map(LlmCli::Agent);
        std::iter::once(LlmCli::Auto)
            .chain(agents)
            .chain([LlmCli::Command])
            .collect()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LlmCli::Auto => "auto",
            LlmCli::Agent(agent) => agent.distill_cli_name(),
            LlmCli::Command => "command",
        }
    }

    pub fn parse(name: &str) -> Option<LlmCli> {
        LlmCli::all().into_iter().find(|cli| cli.as_str() == name)
    }
}

impl Serialize for LlmCli {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for LlmCli {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        // Every value's name, as serde names the variants it expected.
        static NAMES: std::sync::LazyLock<Vec<&'static str>> =
            std::sync::LazyLock::new(|| LlmCli::all().into_iter().map(LlmCli::as_str).collect());
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = LlmCli;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the name of an LLM CLI")
            }
            // Inside the deserializer, so the error names the key (`llm.cli`).
            fn visit_str<E: serde::de::Error>(self, name: &str) -> std::result::Result<LlmCli, E> {
                LlmCli::parse(name).ok_or_else(|| E::unknown_variant(name, &NAMES))
            }
        }
        d.deserialize_str(Name)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Embedding {
    pub model: String,
    pub model_dir: Option<PathBuf>,
}

/// The MCP server (`thehook mcp`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Mcp {
    /// Offer the `forget` tool, so agents can delete memory items.
    pub allow_forget: bool,
}

/// Whose word memory is taken on (`policy::verify`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Trust {
    /// The e-mails of the authors whose committed lines of memory are
    /// given to agents although no build file vouches for the action they
    /// ask for. Empty: you and the authors of the project's own code
    /// (`policy::trust`).
    pub authors: Vec<String>,
}

/// The token budgets `retrieval.token_budget` may set.
pub const TOKEN_BUDGETS: std::ops::RangeInclusive<usize> = 100..=50_000;
/// The timeouts `llm.timeout_secs` may set.
pub const TIMEOUTS_SECS: std::ops::RangeInclusive<u64> = 1..=3600;

/// The one model thehook knows how to find without help.
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";

impl Default for Retrieval {
    fn default() -> Self {
        Retrieval {
            auto_inject: true,
            // After a compaction or /clear, what was given is summarised
            // away or gone: the session is given memory again.
            inject_on: vec![
                SessionSource::Startup,
                SessionSource::Clear,
                SessionSource::Compact,
            ],
            token_budget: 2000,
            max_results: 8,
            include: vec![
                Include::Conventions,
                Include::Architecture,
                Include::History,
                Include::Sessions,
                Include::Notes,
            ],
            left_off: 5,
            on_prompt: true,
            on_file: true,
            on_file_subagents: true,
            // On the replayed histories (tuning half), `full` for every
            // type cost 2.1 times the characters of `task` for the same hit.
            subagents: [(SUBAGENT_DEFAULT_KEY.to_string(), SubagentMode::Task)].into(),
            subagent_token_budget: 1_000,
        }
    }
}

impl Default for Capture {
    fn default() -> Self {
        Capture {
            enabled: true,
            redact_secrets: true,
        }
    }
}

impl Default for Consolidation {
    fn default() -> Self {
        Consolidation {
            every_n_sessions: 5,
        }
    }
}

impl Default for Llm {
    fn default() -> Self {
        Llm {
            cli: LlmCli::Auto,
            model: None,
            command: Vec::new(),
            timeout_secs: 90,
            daily_budget: DailyBudget::default(),
        }
    }
}

impl Default for Embedding {
    fn default() -> Self {
        Embedding {
            model: DEFAULT_MODEL.to_string(),
            model_dir: None,
        }
    }
}

/// A configuration together with what the reader should hear about it.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    /// Unknown keys and similar non-fatal findings, each a full sentence.
    pub warnings: Vec<String>,
}

/// Every environment variable that overrides the file, with the key it sets.
/// docs/configuration.md's table is checked against it (`tests/it/docs.rs`).
pub const ENV_OVERRIDES: &[(&str, &str)] = &[
    ("THEHOOK_AUTO_INJECT", "retrieval.auto_inject"),
    ("THEHOOK_INJECT_ON", "retrieval.inject_on"),
    ("THEHOOK_TOKEN_BUDGET", "retrieval.token_budget"),
    ("THEHOOK_MAX_RESULTS", "retrieval.max_results"),
    ("THEHOOK_LEFT_OFF", "retrieval.left_off"),
    ("THEHOOK_ON_PROMPT", "retrieval.on_prompt"),
    ("THEHOOK_ON_FILE", "retrieval.on_file"),
    ("THEHOOK_CAPTURE_ENABLED", "capture.enabled"),
    ("THEHOOK_REDACT_SECRETS", "capture.redact_secrets"),
    (
        "THEHOOK_CONSOLIDATE_EVERY",
        "consolidation.every_n_sessions",
    ),
    ("THEHOOK_LLM_CLI", "llm.cli"),
    ("THEHOOK_LLM_MODEL", "llm.model"),
    ("THEHOOK_LLM_TIMEOUT_SECS", "llm.timeout_secs"),
    ("THEHOOK_LLM_DAILY_BUDGET", "llm.daily_budget"),
    ("THEHOOK_EMBEDDING_MODEL", "embedding.model"),
    (crate::env::MODEL_DIR, "embedding.model_dir"),
];

impl Config {
    /// Reads `path` (absent means defaults), then applies `THEHOOK_*` overrides
    /// from the process environment.
    pub fn load(path: &Path) -> Result<LoadedConfig> {
        Self::load_with_env(path, crate::env::var)
    }

    /// Like [`Config::load`] with an explicit environment, so tests need not
    /// touch the process environment.
    pub fn load_with_env(
        path: &Path,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<LoadedConfig> {
        let mut loaded = match std::fs::read(path) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes).map_err(|e| Error::Config {
                    path: path.to_path_buf(),
                    line: line_of_byte(
                        &String::from_utf8_lossy(e.as_bytes()),
                        e.utf8_error().valid_up_to(),
                    ),
                    key: "(file)".into(),
                    problem: "the file is not valid UTF-8".into(),
                    source: crate::error::cause(e.utf8_error()),
                    fix: "save the file as UTF-8".into(),
                })?;
                Self::parse(path, &text)?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => LoadedConfig {
                config: Config::default(),
                warnings: Vec::new(),
            },
            Err(e) => return Err(Error::io("cannot read config", path, e)),
        };
        // A relative `model_dir` in the file means relative to the project
        // (the folder holding .thehook/), not to wherever thehook was started.
        if let Some(dir) = loaded
            .config
            .embedding
            .model_dir
            .as_mut()
            .filter(|d| d.is_relative())
        {
            if let Some(root) = path.parent().and_then(Path::parent) {
                *dir = root.join(&*dir);
            }
        }
        loaded.config.apply_env(env)?;
        Ok(loaded)
    }

    /// Parses and validates the text of a config file. `path` only names the
    /// file in messages.
    pub fn parse(path: &Path, text: &str) -> Result<LoadedConfig> {
        let mut unknown = Vec::new();
        // An empty file or one holding only comments is YAML `null`: defaults.
        let config: Config = if text.trim().is_empty() || is_only_comments(text) {
            Config::default()
        } else {
            let de = serde_yaml::Deserializer::from_str(text);
            serde_ignored::deserialize(de, |p| unknown.push(p.to_string()))
                .map_err(|e| yaml_error(path, text, e))?
        };
        let warnings = unknown
            .into_iter()
            .map(|key| {
                let line = line_of_key(text, &key);
                format!(
                    "{}:{line}: unknown key `{key}` is ignored (check its spelling against the keys listed in docs/configuration.md)",
                    path.display()
                )
            })
            .collect();
        config.validate(path, text)?;
        Ok(LoadedConfig { config, warnings })
    }

    fn validate(&self, path: &Path, text: &str) -> Result<()> {
        let bad = |key: &str, problem: &str, fix: &str| Error::Config {
            path: path.to_path_buf(),
            line: line_of_key(text, key),
            key: key.to_string(),
            problem: problem.to_string(),
            source: None,
            fix: fix.to_string().into(),
        };
        if !TOKEN_BUDGETS.contains(&self.retrieval.token_budget) {
            return Err(bad(
                "retrieval.token_budget",
                &format!("{} tokens is out of range", self.retrieval.token_budget),
                &format!(
                    "use a number between {} and {} (default {})",
                    TOKEN_BUDGETS.start(),
                    TOKEN_BUDGETS.end(),
                    Retrieval::default().token_budget
                ),
            ));
        }
        if !TOKEN_BUDGETS.contains(&self.retrieval.subagent_token_budget) {
            return Err(bad(
                "retrieval.subagent_token_budget",
                &format!(
                    "{} tokens is out of range",
                    self.retrieval.subagent_token_budget
                ),
                &format!(
                    "use a number between {} and {} (default {})",
                    TOKEN_BUDGETS.start(),
                    TOKEN_BUDGETS.end(),
                    Retrieval::default().subagent_token_budget
                ),
            ));
        }
        if self.retrieval.max_results == 0 || self.retrieval.max_results > 100 {
            return Err(bad(
                "retrieval.max_results",
                &format!("{} is out of range", self.retrieval.max_results),
                &format!(
                    "use a number between 1 and 100 (default {})",
                    Config::default().retrieval.max_results
                ),
            ));
        }
        if self.retrieval.left_off > 20 {
            return Err(bad(
                "retrieval.left_off",
                &format!("{} sessions is out of range", self.retrieval.left_off),
                &format!(
                    "use a number between 0 and 20 (default {})",
                    Config::default().retrieval.left_off
                ),
            ));
        }
        if self.consolidation.every_n_sessions == 0 {
            return Err(bad(
                "consolidation.every_n_sessions",
                "0 would consolidate after no session at all",
                &format!(
                    "use 1 or more (default {})",
                    Config::default().consolidation.every_n_sessions
                ),
            ));
        }
        if !TIMEOUTS_SECS.contains(&self.llm.timeout_secs) {
            return Err(bad(
                "llm.timeout_secs",
                &format!("{} seconds is out of range", self.llm.timeout_secs),
                &format!(
                    "use a number of seconds between {} and {} (default {})",
                    TIMEOUTS_SECS.start(),
                    TIMEOUTS_SECS.end(),
                    Llm::default().timeout_secs
                ),
            ));
        }
        if self
            .llm
            .daily_budget
            .usd
            .is_some_and(|usd| usd.is_nan() || usd < 0.0)
        {
            return Err(bad(
                "llm.daily_budget",
                "a negative or NaN number of dollars is no budget",
                "use e.g. `{calls: 50, usd: 2.0}`; `null` lifts a limit",
            ));
        }
        if self.llm.cli == LlmCli::Command && self.llm.command.is_empty() {
            return Err(bad(
                "llm.command",
                "`llm.cli: command` needs the command to run",
                "set `llm.command` to an argv list, e.g. [\"my-llm\", \"--quiet\"]",
            ));
        }
        if let Some(bad_email) = self.trust.authors.iter().find(|a| !a.contains('@')) {
            return Err(bad(
                "trust.authors",
                &format!("`{bad_email}` is not an e-mail address"),
                "list the e-mails git records for the authors (`git log --format=%ae`)",
            ));
        }
        if self.embedding.model.trim().is_empty() {
            return Err(bad(
                "embedding.model",
                "the model name is empty",
                &format!("use `{DEFAULT_MODEL}` or remove the key"),
            ));
        }
        if self.embedding.model != DEFAULT_MODEL && self.embedding.model_dir.is_none() {
            return Err(bad(
                "embedding.model",
                &format!("thehook does not know where to find `{}`", self.embedding.model),
                &format!(
                    "use `{DEFAULT_MODEL}`, or set `embedding.model_dir` to a folder with model.onnx and tokenizer files"
                ),
            ));
        }
        Ok(())
    }

    fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<()> {
        for (var, key) in ENV_OVERRIDES {
            let Some(value) = env(var) else { continue };
            let bad = |e: serde_yaml::Error, fix: &str| Error::EnvOverride {
                var: var.to_string(),
                value: value.clone(),
                problem: e.to_string(),
                source: crate::error::cause(e),
                fix: fix.to_string().into(),
            };
            // Overrides go through the same YAML parser as the file, so
            // `THEHOOK_INJECT_ON=startup,resume` and `[startup, resume]` both work.
            let yaml = if *key == "retrieval.inject_on" && !value.trim_start().starts_with('[') {
                format!("[{value}]")
            } else if matches!(
                *key,
                "embedding.model_dir" | "embedding.model" | "llm.model"
            ) {
                serde_json::to_string(&value).expect("a string always serializes")
            } else {
                value.clone()
            };
            let (section, field) = key.split_once('.').expect("keys are section.field");
            let doc = format!("{section}:\n  {field}: {yaml}\n");
            let mut patched: serde_yaml::Value =
                serde_yaml::to_value(&*self).expect("config always serializes");
            let patch: serde_yaml::Value = serde_yaml::from_str(&doc)
                .map_err(|e| bad(e, "give a plain value, e.g. 2000, true or startup"))?;
            patched[section][field] = patch[section][field].clone();
            *self = serde_yaml::from_value(patched)
                .map_err(|e| bad(e, &format!("use a value that `{key}` accepts")))?;
        }
        // Validated once all are applied: some keys only make sense together
        // (THEHOOK_EMBEDDING_MODEL needs THEHOOK_MODEL_DIR).
        match self.validate(Path::new("environment"), "") {
            Err(Error::Config {
                key,
                problem,
                source,
                fix,
                ..
            }) => {
                let (var, _) = ENV_OVERRIDES
                    .iter()
                    .find(|(var, k)| *k == key && env(var).is_some())
                    .or_else(|| ENV_OVERRIDES.iter().find(|(var, _)| env(var).is_some()))
                    .expect("validation fails after an override only if one was set");
                Err(Error::EnvOverride {
                    var: var.to_string(),
                    value: env(var).unwrap_or_default(),
                    problem,
                    source,
                    fix,
                })
            }
            other => other,
        }
    }
}

/// The commented defaults `init` writes, and docs/configuration.md shows
/// (`tests/it/docs.rs` checks it).
pub const COMMENTED_DEFAULTS: &str = include_str!("config_defaults.yaml");

fn is_only_comments(text: &str) -> bool {
    text.lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#') || l.trim() == "---")
}

fn yaml_error(path: &Path, text: &str, e: serde_yaml::Error) -> Error {
    let line = e.location().map(|l| l.line()).unwrap_or(1);
    let message = e.to_string();
    // serde_yaml prefixes the dotted path of the offending key ("retrieval.token_budget: ...").
    let (key, problem) = match message.split_once(": ") {
        Some((k, rest)) if !k.contains(' ') && !k.is_empty() => (k.to_string(), rest.to_string()),
        _ => ("(file)".to_string(), message.clone()),
    };
    let problem = strip_location(&problem);
    let fix = if key == "(file)" {
        "fix the YAML syntax on that line (indent with spaces, `key: value`)".to_string()
    } else {
        let line_key = if e.location().is_none() {
            line_of_key(text, &key)
        } else {
            line
        };
        return Error::Config {
            path: path.to_path_buf(),
            line: line_key,
            source: crate::error::cause(e),
            fix: fix_for(&key).into(),
            key,
            problem,
        };
    };
    Error::Config {
        path: path.to_path_buf(),
        line,
        key,
        problem,
        source: crate::error::cause(e),
        fix: fix.into(),
    }
}

/// serde's wording without the position (we print our own) and without Rust
/// type names a user never wrote.
fn strip_location(problem: &str) -> String {
    let problem = match problem.find(" at line ") {
        Some(i) => &problem[..i],
        None => problem,
    };
    let problem = ["usize", "u64", "u32"]
        .iter()
        .fold(problem.to_string(), |p, ty| {
            p.replace(&format!("expected {ty}"), "expected a whole number")
        });
    match problem.find("expected struct ") {
        Some(i) => format!("{}expected a section of `key: value` lines", &problem[..i]),
        None => problem,
    }
}

/// What to write instead, for keys whose valid values are a closed set.
fn fix_for(key: &str) -> String {
    // A type's mode is keyed under the map: `retrieval.subagents.Explore`.
    let key = match key.starts_with("retrieval.subagents.") {
        true => "retrieval.subagents",
        false => key,
    };
    match key.split('[').next().unwrap_or(key) {
        "retrieval.inject_on" => "use a list of: startup, resume, clear, compact, fork".into(),
        "retrieval.subagents" => {
            "use a map of subagent type to full, task or none, e.g. {default: full, Explore: task}"
                .into()
        }
        "retrieval.include" => {
            "use a list of: conventions, architecture, history, sessions, notes".into()
        }
        "llm.cli" => {
            let names: Vec<&str> = LlmCli::all().into_iter().map(LlmCli::as_str).collect();
            format!("use one of: {}", names.join(", "))
        }
        "llm.command" => "use a list of strings, e.g. [\"my-llm\", \"--quiet\"]".into(),
        "retrieval.auto_inject"
        | "retrieval.on_prompt"
        | "retrieval.on_file"
        | "retrieval.on_file_subagents"
        | "capture.enabled"
        | "capture.redact_secrets"
        | "mcp.allow_forget" => "use true or false".into(),
        "embedding.model_dir" => "use a folder path, or null".into(),
        _ => "use a value of the type shown in docs/configuration.md".into(),
    }
}

/// 1-based line where a dotted key (`retrieval.token_budget`) is written, or 1.
fn line_of_key(text: &str, dotted: &str) -> usize {
    let mut line_no = 1;
    let mut start = 0;
    let parts: Vec<&str> = dotted
        .split('.')
        .map(|p| p.split('[').next().unwrap_or(p))
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    for part in parts {
        let found = lines.iter().enumerate().skip(start).find(|(_, l)| {
            let t = l.trim_start();
            t.starts_with(&format!("{part}:")) && !t.starts_with('#')
        });
        match found {
            Some((i, _)) => {
                line_no = i + 1;
                start = i + 1;
            }
            None => break,
        }
    }
    line_no
}

fn line_of_byte(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests;
