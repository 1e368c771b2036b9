//! Hybrid ranking: BM25 and vector candidates fused into one list, recency as
//! the tie-breaker, near-duplicates folded into the first of their kind.

use std::collections::HashMap;

use serde::Serialize;

use crate::memory::rank::tally::{TallyFile, UseCount};

use crate::memory::index::Candidates;
use crate::store::item::Item;
use crate::text::analysis::lexical::Analyzer;
use crate::text::analysis::when::Period;

/// Which retrievers to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Hybrid,
    Lexical,
    Vector,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Hybrid, Mode::Lexical, Mode::Vector];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Lexical => "lexical",
            Mode::Vector => "vector",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "hybrid" => Some(Mode::Hybrid),
            "lexical" => Some(Mode::Lexical),
            "vector" => Some(Mode::Vector),
            _ => None,
        }
    }
}

/// Weight of the lexical score in the fused score (the vector score gets the
/// rest). Chosen on LoCoMo by `bench/locomo.py --sweep`; see docs/benchmarks.md.
pub const LEXICAL_WEIGHT: f32 = 0.6;

/// Added to the fused score of items dated in the period a query names
/// ("in March 2026"): +0.019 recall@5 on LoCoMo, whose temporal questions
/// name months and days.
pub const DATE_BOOST: f32 = 0.3;

/// Items whose term sets overlap at least this much are one fact said twice.
const DUPLICATE_JACCARD: f32 = 0.85;

/// One search result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    #[serde(flatten)]
    pub item: Item,
    /// `path:line` of the item.
    pub citation: String,
    /// Fused score in [0, 1], times what agents' use of the line says
    /// (`used`; 1 for a line never given); only the order is meaningful.
    pub score: f32,
    /// Citations of near-duplicates folded into this hit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<String>,
    /// In how many captured sessions it was given and used
    /// ([`crate::memory::rank::tally`]); absent when never given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used: Option<UseCount>,
    /// Why the item may no longer be true ([`crate::policy::stale`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
}

/// Fuses the candidates of both retrievers and returns the best `k`.
///
/// Each list's scores are scaled to [0, 1] by its best score (BM25) or by its
/// spread (cosine), then combined with `lexical_weight`. Score fusion beats
/// reciprocal-rank fusion on LoCoMo because it keeps how far ahead the best
/// lexical match is (docs/search.md says how recall ranks).
/// Items from the `period` the query names, if any, get [`DATE_BOOST`].
pub fn fuse(
    candidates: Candidates,
    mode: Mode,
    lexical_weight: f32,
    period: Option<Period>,
    k: usize,
    analyzer: &Analyzer,
) -> Vec<Hit> {
    let (lexical, vector) = match mode {
        Mode::Hybrid => (candidates.lexical, candidates.vector),
        Mode::Lexical => (candidates.lexical, Vec::new()),
        Mode::Vector => (Vec::new(), candidates.vector),
    };
    // Without vectors (lexical-only install) hybrid is plain BM25.
    let lexical_weight = if vector.is_empty() {
        1.0
    } else if lexical.is_empty() {
        0.0
    } else {
        lexical_weight
    };
    let mut fused: HashMap<String, (Item, f32)> = HashMap::new();
    let best = lexical.first().map_or(1.0, |(_, s)| *s).max(f32::EPSILON);
    for (item, s) in lexical {
        let score = lexical_weight * s / best;
        fused.insert(item.id.clone(), (item, score));
    }
    let hi = vector.iter().map(|(_, s)| *s).fold(f32::MIN, f32::max);
    let lo = vector.iter().map(|(_, s)| *s).fold(f32::MAX, f32::min);
    let spread = (hi - lo).max(f32::EPSILON);
    for (item, s) in vector {
        let score = (1.0 - lexical_weight) * (s - lo) / spread;
        fused.entry(item.id.clone()).or_insert((item, 0.0)).1 += score;
    }
    let mut ranked: Vec<(Item, f32)> = fused.into_values().collect();
    if let Some(period) = period {
        for (item, score) in &mut ranked {
            if period.contains(&item.date) {
                *score += DATE_BOOST;
            }
        }
    }
    ranked.sort_by(|(a, sa), (b, sb)| {
        sb.total_cmp(sa)
            // Recency breaks ties: the newer statement of a fact wins.
            .then_with(|| date_key(&b.date).cmp(&date_key(&a.date)))
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.line_start.cmp(&b.line_start))
    });
    fold_duplicates(ranked, k, analyzer)
}

/// What agents used of what they were given moves each hit up or down
/// ([`TallyFile`]); of equals, the fused order (the sort is stable). The
/// hooks and `recall` rank alike through it.
pub(crate) fn reweigh(hits: &mut [Hit], tally: &TallyFile) {
    for hit in hits.iter_mut() {
        let count = tally.line(&hit.citation);
        hit.score *= count.weight();
        hit.used = (count.given > 0).then_some(count);
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
}

fn date_key(date: &str) -> i128 {
    date.parse::<jiff::Timestamp>()
        .map_or(0, |t| t.as_nanosecond())
}

fn fold_duplicates(ranked: Vec<(Item, f32)>, k: usize, analyzer: &Analyzer) -> Vec<Hit> {
    let mut hits: Vec<Hit> = Vec::new();
    let mut term_sets: Vec<TermSet> = Vec::new();
    for (item, score) in ranked {
        let terms = TermSet::of(&item.text, analyzer);
        if let Some(i) = term_sets.iter().position(|t| is_duplicate(t, &terms)) {
            hits[i].duplicates.push(item.citation());
            continue;
        }
        if hits.len() == k {
            // Past k, candidates only matter as duplicates of what is shown.
            continue;
        }
        term_sets.push(terms);
        hits.push(Hit {
            citation: item.citation(),
            item,
            score,
            duplicates: Vec::new(),
            used: None,
            stale: None,
        });
    }
    hits
}

/// Pairs of `items` that say nearly the same thing, by the measure
/// search folds them with: each pair once, the earlier item first. Items
/// are compared within their kind only, and only those whose sizes allow
/// the overlap, so a few thousand items take milliseconds.
pub(crate) fn near_duplicates(items: &[Item], analyzer: &Analyzer) -> Vec<(Item, Item)> {
    let mut by_size: Vec<(usize, TermSet)> = items
        .iter()
        .enumerate()
        .map(|(n, item)| (n, TermSet::of(&item.text, analyzer)))
        .filter(|(_, terms)| terms.len() >= 3)
        .collect();
    by_size.sort_by_key(|(n, terms)| (terms.len(), *n));
    let mut pairs = Vec::new();
    for (i, (a, terms_a)) in by_size.iter().enumerate() {
        for (b, terms_b) in &by_size[i + 1..] {
            // Past this size no overlap reaches the threshold.
            if (terms_a.len() as f32) < DUPLICATE_JACCARD * terms_b.len() as f32 {
                break;
            }
            if items[*a].kind == items[*b].kind && is_duplicate(terms_a, terms_b) {
                let (first, second) = if a < b { (a, b) } else { (b, a) };
                pairs.push((items[*first].clone(), items[*second].clone()));
            }
        }
    }
    pairs.sort_by(|x, y| (&x.0.path, x.0.line_start).cmp(&(&y.0.path, y.0.line_start)));
    pairs
}

/// An item's distinct terms, sorted: two are compared in one merge, where
/// hashed sets hashed every term of one to look it up in the other (a
/// session start compared some 1,800 pairs: 9.7 million instructions).
struct TermSet(Vec<String>);

impl TermSet {
    fn of(text: &str, analyzer: &Analyzer) -> TermSet {
        let mut terms = analyzer.terms(text);
        terms.sort_unstable();
        terms.dedup();
        TermSet(terms)
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many terms both hold.
    fn shared(&self, other: &TermSet) -> usize {
        let (mut a, mut b) = (self.0.iter().peekable(), other.0.iter().peekable());
        let mut n = 0;
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            match x.cmp(y) {
                std::cmp::Ordering::Less => {
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    n += 1;
                    a.next();
                    b.next();
                }
            }
        }
        n
    }
}

fn is_duplicate(a: &TermSet, b: &TermSet) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a.len().min(b.len()) < 3 {
        return a.0 == b.0;
    }
    let shared = a.shared(b) as f32;
    let union = (a.len() + b.len()) as f32 - shared;
    shared / union >= DUPLICATE_JACCARD
}

#[cfg(test)]
mod tests;
