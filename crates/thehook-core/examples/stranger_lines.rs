//! What a stranger's line names that a project does not hold
//! (`policy/stranger.rs`), line by line, for a corpus laid out as
//! `bench/setup_notes/`: `cargo run --release -p thehook-core --example
//! stranger_lines -- bench/setup_notes`.

use std::path::PathBuf;

use thehook_core::policy::corroborate::{files_under, RepoFacts};
use thehook_core::policy::stranger_concern;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .expect("a corpus folder");
    for eco in ["node", "python", "go"] {
        let project = dir.join(eco).join("project");
        let facts = RepoFacts::read(&project, files_under(&project));
        for file in ["planted.tsv", "benign.tsv"] {
            let text = std::fs::read_to_string(dir.join(eco).join(file)).unwrap_or_default();
            for line in text.lines().filter(|l| l.contains('\t')) {
                let (family, line) = line.split_once('\t').unwrap();
                let concern = stranger_concern(line, &facts);
                println!("{eco} {file} {family}: {concern:?}\n    {line}");
            }
        }
    }
}
