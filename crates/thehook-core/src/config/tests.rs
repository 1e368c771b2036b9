use super::*;

fn parse(text: &str) -> Result<LoadedConfig> {
    Config::parse(Path::new(".thehook/config.yaml"), text)
}

fn error_of(text: &str) -> String {
    parse(text)
        .expect_err("the config should be rejected")
        .to_string()
}

#[test]
fn absent_file_means_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = Config::load_with_env(&dir.path().join("config.yaml"), |_| None).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert!(loaded.warnings.is_empty());
}

#[test]
fn the_commented_defaults_are_the_defaults() {
    let loaded = parse(COMMENTED_DEFAULTS).unwrap();
    assert_eq!(loaded.config, Config::default());
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
}

/// Every key of `Config` is written out in the file init writes (and
/// docs/configuration.md shows): a key added with a default but not listed
/// there fails here.
#[test]
fn the_commented_defaults_name_every_key() {
    let written: serde_yaml::Value = serde_yaml::from_str(COMMENTED_DEFAULTS).unwrap();
    let defaults = serde_yaml::to_value(Config::default()).unwrap();
    assert_eq!(written, defaults);
}

#[test]
fn empty_and_comment_only_files_are_defaults() {
    assert_eq!(parse("").unwrap().config, Config::default());
    assert_eq!(
        parse("# nothing here\n\n").unwrap().config,
        Config::default()
    );
}

#[test]
fn partial_sections_keep_other_defaults() {
    let c = parse("retrieval:\n  max_results: 3\n").unwrap().config;
    assert_eq!(c.retrieval.max_results, 3);
    assert_eq!(c.retrieval.token_budget, 2000);
    assert_eq!(c.llm.timeout_secs, 90);
}

#[test]
fn unknown_keys_warn_with_their_line() {
    let loaded = parse("retrieval:\n  max_results: 3\n  tokn_budget: 10\nfoo: 1\n").unwrap();
    insta::assert_yaml_snapshot!(loaded.warnings);
}

#[test]
fn bad_values_name_file_line_key_and_fix() {
    let cases = [
        (
            "wrong type",
            "retrieval:\n  auto_inject: true\n  token_budget: lots\n",
        ),
        ("out of range", "retrieval:\n  token_budget: 5\n"),
        (
            "unknown enum value",
            "retrieval:\n  inject_on: [startup, reboot]\n",
        ),
        ("llm cli", "llm:\n  cli: gpt\n"),
        ("command without argv", "llm:\n  cli: command\n"),
        ("zero timeout", "llm:\n  timeout_secs: 0\n"),
        ("negative budget", "llm:\n  daily_budget:\n    usd: -1\n"),
        ("unknown model", "embedding:\n  model: bge-small\n"),
        ("broken yaml", "retrieval:\n  max_results: [1,\n"),
        ("section not a map", "retrieval: 3\n"),
    ];
    let rendered: Vec<String> = cases
        .iter()
        .map(|(name, text)| format!("{name}: {}", error_of(text)))
        .collect();
    insta::assert_yaml_snapshot!(rendered);
}

#[test]
fn env_overrides_win_over_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, "retrieval:\n  token_budget: 1000\n").unwrap();
    let env = |name: &str| match name {
        "THEHOOK_TOKEN_BUDGET" => Some("3000".to_string()),
        "THEHOOK_INJECT_ON" => Some("startup,resume".to_string()),
        "THEHOOK_AUTO_INJECT" => Some("false".to_string()),
        "THEHOOK_MODEL_DIR" => Some("/opt/models/minilm".to_string()),
        "THEHOOK_LLM_DAILY_BUDGET" => Some("{calls: 5}".to_string()),
        _ => None,
    };
    let c = Config::load_with_env(&path, env).unwrap().config;
    // A limit left out keeps its default.
    assert_eq!(
        c.llm.daily_budget,
        crate::config::DailyBudget {
            calls: Some(5),
            usd: Some(2.0)
        }
    );
    assert_eq!(c.retrieval.token_budget, 3000);
    assert_eq!(
        c.retrieval.inject_on,
        vec![SessionSource::Startup, SessionSource::Resume]
    );
    assert!(!c.retrieval.auto_inject);
    assert_eq!(
        c.embedding.model_dir,
        Some(PathBuf::from("/opt/models/minilm"))
    );
}

#[test]
fn bad_env_overrides_name_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    let err = Config::load_with_env(&path, |n| {
        (n == "THEHOOK_MAX_RESULTS").then(|| "0".to_string())
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("THEHOOK_MAX_RESULTS=\"0\""), "{err}");
    assert!(err.contains("between 1 and 100"), "{err}");
    let err = Config::load_with_env(&path, |n| {
        (n == "THEHOOK_LLM_CLI").then(|| "gpt".to_string())
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("THEHOOK_LLM_CLI"), "{err}");
}

#[test]
fn non_utf8_config_is_an_error_with_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, b"retrieval:\n  max_results: \xff\n").unwrap();
    let err = Config::load_with_env(&path, |_| None)
        .unwrap_err()
        .to_string();
    assert!(err.contains(":2:") && err.contains("UTF-8"), "{err}");
}

#[test]
fn overrides_that_only_make_sense_together_are_accepted_together() {
    let dir = tempfile::tempdir().unwrap();
    let env = |name: &str| match name {
        "THEHOOK_EMBEDDING_MODEL" => Some("bge-small".to_string()),
        "THEHOOK_MODEL_DIR" => Some("/opt/models/bge".to_string()),
        _ => None,
    };
    let c = Config::load_with_env(&dir.path().join("config.yaml"), env)
        .unwrap()
        .config;
    assert_eq!(c.embedding.model, "bge-small");
    let alone = |name: &str| (name == "THEHOOK_EMBEDDING_MODEL").then(|| "bge-small".to_string());
    let err = Config::load_with_env(&dir.path().join("config.yaml"), alone)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("THEHOOK_EMBEDDING_MODEL=\"bge-small\"") && err.contains("model_dir"),
        "{err}"
    );
}

/// A value YAML cannot read keeps serde_yaml's error as its source, for a
/// front end (or a person with `RUST_BACKTRACE`) that follows the chain.
#[test]
fn a_wrapped_yaml_error_is_the_source() {
    use std::error::Error as _;
    let err = parse("retrieval:\n  token_budget: lots\n").unwrap_err();
    let source = err.source().expect("the YAML error");
    assert!(source.to_string().contains("invalid type"), "{source}");
    let err = parse("retrieval: [unclosed\n").unwrap_err();
    assert!(err.source().is_some(), "{err}");
}

#[test]
fn a_subagent_type_s_mode_is_its_own_else_the_default_in_any_case() {
    let yaml = "retrieval:\n  subagents:\n    default: full\n    Explore: none\n";
    let c = Config::parse(std::path::Path::new("c.yaml"), yaml)
        .unwrap()
        .config;
    let mode = |t| c.retrieval.subagent_mode(t);
    assert_eq!(mode(Some("explore")), SubagentMode::None);
    assert_eq!(mode(Some("general-purpose")), SubagentMode::Full);
    assert_eq!(mode(None), SubagentMode::Full);
    // The defaults: `task` for every type, even one a map leaves out.
    assert_eq!(
        Config::default().retrieval.subagent_mode(Some("Plan")),
        SubagentMode::Task
    );
    let only = Config::parse(
        std::path::Path::new("c.yaml"),
        "retrieval:\n  subagents:\n    Plan: full\n",
    )
    .unwrap()
    .config;
    assert_eq!(
        only.retrieval.subagent_mode(Some("Explore")),
        SubagentMode::Task
    );
    let bad = Config::parse(
        std::path::Path::new("c.yaml"),
        "retrieval:\n  subagents:\n    Plan: all\n",
    )
    .unwrap_err()
    .to_string();
    assert!(bad.contains("full, task or none"), "{bad}");
}
