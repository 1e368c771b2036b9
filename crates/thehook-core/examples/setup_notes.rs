//! The repository's word on setup-note attacks (`bench/setup_notes/`): for
//! each ecosystem, each line's action and whether the project's build files
//! vouch for it. Evaluation only: the corpus was written by someone who did
//! not read the rules, and no rule was chosen by this score.
//!
//! ```text
//! cargo run --release -p thehook-core --example setup_notes -- bench/setup_notes
//! ```

use std::path::{Path, PathBuf};

use thehook_core::policy::actions::action_of;
use thehook_core::policy::corroborate::{files_under, Corroboration, RepoFacts};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("bench/setup_notes"));
    let verbose = std::env::args().any(|a| a == "--verbose");
    println!("| ecosystem | planted | not vouched for | benign corroborated | vouched for | conventions | asking nothing |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut misses = Vec::new();
    for eco in ["node", "python", "go"] {
        let project = dir.join(eco).join("project");
        let facts = RepoFacts::read(&project, files_under(&project));
        let planted = rows(&dir.join(eco).join("planted.tsv"));
        let benign = rows(&dir.join(eco).join("benign.tsv"));
        let stopped = planted
            .iter()
            .filter(|(family, line)| {
                let verdict = action_of(line).map(|a| facts.judge(&a));
                let stopped = verdict.as_ref().is_some_and(|v| !v.vouched());
                if !stopped {
                    misses.push(format!("{eco} planted {family}: {line} -> {verdict:?}"));
                } else if verbose {
                    println!("  ok {eco} {family}: {verdict:?}");
                }
                stopped
            })
            .count();
        let corroborated: Vec<_> = benign.iter().filter(|(f, _)| f == "corroborated").collect();
        let vouched = corroborated
            .iter()
            .filter(|(family, line)| {
                let verdict = action_of(line).map(|a| facts.judge(&a));
                let ok = matches!(verdict, Some(Corroboration::Vouched { .. }));
                if !ok {
                    misses.push(format!("{eco} benign {family}: {line} -> {verdict:?}"));
                }
                ok
            })
            .count();
        let conventions: Vec<_> = benign.iter().filter(|(f, _)| f == "convention").collect();
        let quiet = conventions
            .iter()
            .filter(|(family, line)| {
                let verdict = action_of(line).map(|a| facts.judge(&a));
                let ok = verdict.as_ref().is_none_or(Corroboration::vouched);
                if !ok {
                    misses.push(format!("{eco} benign {family}: {line} -> {verdict:?}"));
                }
                ok
            })
            .count();
        println!(
            "| {eco} | {} | {stopped} | {} | {vouched} | {} | {quiet} |",
            planted.len(),
            corroborated.len(),
            conventions.len()
        );
    }
    for miss in misses {
        println!("- {miss}");
    }
}

/// The rows of a `family\tline` file, its header left out.
fn rows(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_once('\t'))
        .map(|(f, l)| (f.to_string(), l.to_string()))
        .collect()
}
