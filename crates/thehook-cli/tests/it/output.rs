//! What the user reads: each command's whole output (exit code, stdout,
//! stderr) as a snapshot, lexical-only so that it is the same with or
//! without the model. A changed word shows up in review.

use crate::common::{thehook_snapshot, Project};

fn demo() -> Project {
    Project::demo().lexical_only()
}

#[test]
fn init_lists_what_it_changed_then_what_it_kept_and_uninstall_what_it_removed() {
    let p = Project::empty().lexical_only();
    let bin = assert_cmd::cargo::cargo_bin("thehook");
    let bin = bin.to_str().unwrap();
    let init = [
        "init",
        "--agent",
        "claude,cursor,codex,gemini",
        "--bin",
        bin,
    ];
    thehook_snapshot!(p, init);
    thehook_snapshot!(p, init);
    thehook_snapshot!(p, ["uninstall"]);
}

#[test]
fn remember_says_where_the_fact_went_and_recall_finds_it() {
    let p = Project::empty().lexical_only();
    let args = [
        "remember",
        "Integration tests need Docker running",
        "--type",
        "gotcha",
    ];
    let remembered = p.output_of(&args, None);
    let recalled = p.output_of(&["recall", "docker tests"], None);
    // A fact's id covers its date, so today's fact has today's id.
    let id = regex::Regex::new(r"remembered ([0-9a-f]{12}) ")
        .unwrap()
        .captures(&remembered)
        .unwrap_or_else(|| panic!("no id in {remembered}"))[1]
        .to_string();
    let mut filters = p.filters();
    filters.push((id, "[ID]".into()));
    let filters: Vec<(&str, &str)> = filters
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    insta::with_settings!({ filters => filters }, {
        insta::assert_snapshot!("remember", remembered);
        insta::assert_snapshot!("recall", recalled);
    });
}

#[test]
fn recall_cites_path_and_line_in_text_and_in_json() {
    let p = demo();
    thehook_snapshot!(p, ["recall", "refresh token rotation", "-k", "3"]);
    thehook_snapshot!(p, ["recall", "refresh token rotation", "-k", "2", "--json"]);
}

#[test]
fn status_reports_memory_index_and_the_missing_model() {
    let p = demo();
    p.ok(&["reindex"]);
    thehook_snapshot!(p, ["status"]);
}

#[test]
fn errors_say_what_is_wrong_and_what_to_do() {
    let p = demo();
    thehook_snapshot!(p, ["recall", "auth", "-k", "0"]);
    thehook_snapshot!(p, ["recall", "auth", "--type", "decisionz"]);
    thehook_snapshot!(p, ["forget", "ffffffffffff"]);
    thehook_snapshot!(p, ["read", "no-such-session"]);
    thehook_snapshot!(p, ["remember", "   "]);
    let empty = Project::empty().lexical_only();
    thehook_snapshot!(empty, ["recall", "auth"]);
}

#[test]
fn hooks_print_nothing_on_bad_input_and_exit_0() {
    let p = demo();
    thehook_snapshot!(p, ["retrieve", "--agent", "claude-code"], Some("not json"));
    thehook_snapshot!(p, ["capture", "--agent", "claude-code"], Some(""));
}
