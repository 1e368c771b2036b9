//! How many items of real memory ask for an action (install, source, run,
//! a secret moved, a control weakened), and how many of those the
//! repository's build files vouch for: the most that judging action lines
//! by their source could withhold, were every line from outside.
//!
//! ```text
//! cargo run --release -p thehook-core --example action_lines -- <work tree>... [--list]
//! ```
//!
//! Each work tree is a project with memory (`bench/replay.py`'s
//! `<cache>/<history>/worktree-<llm>/`): its `.thehook/**/*.md` parsed as
//! the index parses them, its build files read as the check reads them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use thehook_core::policy::actions::action_of;
use thehook_core::policy::corroborate::{files_under, Corroboration, RepoFacts};
use thehook_core::store::parse_markdown;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list = args.iter().any(|a| a == "--list");
    println!(
        "| work tree | items | action lines | vouched for | not vouched for | never vouched for |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let mut lines = Vec::new();
    for tree in args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
    {
        let files = files_under(&tree);
        let facts = RepoFacts::read(&tree, files.iter().cloned());
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for rel in files
            .iter()
            .filter(|r| r.starts_with(".thehook/") && r.ends_with(".md"))
        {
            let Ok(text) = std::fs::read_to_string(tree.join(rel)) else {
                continue;
            };
            for item in parse_markdown(rel, &text, "1970-01-01T00:00:00Z").items {
                *counts.entry("items").or_default() += 1;
                let Some(action) = action_of(&item.text) else {
                    continue;
                };
                *counts.entry("actions").or_default() += 1;
                let verdict = facts.judge(&action);
                let key = match &verdict {
                    Corroboration::Vouched { .. } => "vouched",
                    Corroboration::Unvouched { .. } => "unvouched",
                    Corroboration::NeverVouched { .. } => "never",
                };
                *counts.entry(key).or_default() += 1;
                if key != "vouched" {
                    let text: String = item.text.split_whitespace().collect::<Vec<_>>().join(" ");
                    lines.push(format!(
                        "- {} {}: {} -> {verdict:?}",
                        action.family.name(),
                        item.citation(),
                        thehook_core::text::clip_chars(&text, 160)
                    ));
                }
            }
        }
        let n = |k: &str| counts.get(k).copied().unwrap_or(0);
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            tree.display(),
            n("items"),
            n("actions"),
            n("vouched"),
            n("unvouched"),
            n("never")
        );
    }
    if list {
        for line in lines {
            println!("{line}");
        }
    }
}
