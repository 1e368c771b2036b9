use super::*;
use crate::store::item::{Item, ItemKind};

fn item(id: &str, text: &str, date: &str) -> Item {
    Item {
        id: id.into(),
        kind: ItemKind::Note,
        text: text.into(),
        path: ".thehook/knowledge/notes.md".into(),
        line_start: id.len(),
        line_end: id.len(),
        date: date.into(),
        session_id: None,
        withheld: None,
        awaiting_check: false,
        outside: None,
    }
}

const OLD: &str = "2025-01-01T00:00:00Z";
const NEW: &str = "2026-01-01T00:00:00Z";

fn ids(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

/// Fuses BM25-only candidates, best first, as a lexical-only install would.
fn fuse_lexical(scored: Vec<(Item, f32)>, period: Option<Period>, k: usize) -> Vec<Hit> {
    let candidates = Candidates {
        lexical: scored,
        vector: vec![],
    };
    fuse(
        candidates,
        Mode::Lexical,
        0.5,
        period,
        k,
        &Analyzer::default(),
    )
}

#[test]
fn hybrid_rewards_agreement_of_both_retrievers() {
    let a = item("a", "alpha build cache", OLD);
    let b = item("b", "beta deploy pipeline", OLD);
    let c = item("c", "gamma flaky test", OLD);
    let candidates = Candidates {
        lexical: vec![(a.clone(), 10.0), (b.clone(), 9.0), (c.clone(), 1.0)],
        vector: vec![(b.clone(), 0.9), (c.clone(), 0.5), (a.clone(), 0.1)],
    };
    let hits = fuse(candidates, Mode::Hybrid, 0.5, None, 3, &Analyzer::default());
    assert_eq!(ids(&hits), ["b", "a", "c"]);
}

#[test]
fn modes_use_only_their_retriever() {
    let a = item("a", "alpha build cache", OLD);
    let b = item("b", "beta deploy pipeline", OLD);
    let both = || Candidates {
        lexical: vec![(a.clone(), 10.0), (b.clone(), 1.0)],
        vector: vec![(b.clone(), 0.9), (a.clone(), 0.1)],
    };
    assert_eq!(
        ids(&fuse(
            both(),
            Mode::Lexical,
            0.5,
            None,
            2,
            &Analyzer::default()
        )),
        ["a", "b"]
    );
    assert_eq!(
        ids(&fuse(
            both(),
            Mode::Vector,
            0.5,
            None,
            2,
            &Analyzer::default()
        )),
        ["b", "a"]
    );
}

#[test]
fn without_vectors_hybrid_is_bm25_order() {
    let a = item("a", "alpha build cache", OLD);
    let b = item("b", "beta deploy pipeline", OLD);
    let candidates = Candidates {
        lexical: vec![(a, 2.0), (b, 1.0)],
        vector: vec![],
    };
    let hits = fuse(candidates, Mode::Hybrid, 0.5, None, 5, &Analyzer::default());
    assert_eq!(ids(&hits), ["a", "b"]);
    assert!(
        (hits[0].score - 1.0).abs() < 1e-6,
        "best lexical hit scores 1 without vectors"
    );
}

#[test]
fn recency_breaks_ties() {
    let old = item("old", "the cache lives in redis", OLD);
    let new = item("new", "the cache now lives in valkey", NEW);
    assert_eq!(
        ids(&fuse_lexical(vec![(old, 1.0), (new, 1.0)], None, 2)),
        ["new", "old"]
    );
}

#[test]
fn near_duplicates_fold_into_the_best_hit() {
    let a = item(
        "a",
        "Tests are colocated in __tests__ next to source files",
        OLD,
    );
    let b = item(
        "bb",
        "tests colocated in __tests__ next to the source files",
        OLD,
    );
    let c = item("ccc", "Deploys go through the staging pipeline first", OLD);
    let hits = fuse_lexical(vec![(a, 3.0), (b, 2.9), (c, 1.0)], None, 5);
    assert_eq!(ids(&hits), ["a", "ccc"]);
    assert_eq!(hits[0].duplicates, [".thehook/knowledge/notes.md:2"]);
}

#[test]
fn k_limits_results_but_duplicates_past_k_still_fold() {
    let a = item("a", "use pnpm workspaces for packages", OLD);
    let b = item("bb", "release tags are signed", OLD);
    let c = item("ccc", "Use pnpm workspaces, for packages.", OLD);
    let hits = fuse_lexical(vec![(a, 3.0), (b, 2.0), (c, 1.0)], None, 2);
    assert_eq!(ids(&hits), ["a", "bb"]);
    assert_eq!(hits[0].duplicates.len(), 1);
}

#[test]
fn items_from_the_period_a_query_names_move_up() {
    let march = item("march", "moved search to postgres", "2026-03-04T00:00:00Z");
    let june = item("june", "moved search to elastic", "2026-06-10T00:00:00Z");
    let scored = || vec![(june.clone(), 2.0), (march.clone(), 1.8)];
    assert_eq!(ids(&fuse_lexical(scored(), None, 2)), ["june", "march"]);
    let period = crate::text::analysis::when::period_in("search in March 2026");
    assert_eq!(ids(&fuse_lexical(scored(), period, 2)), ["march", "june"]);
}
