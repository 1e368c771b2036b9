//! Lexical side of search: text -> terms (Unicode words, lower-cased, English
//! stop words dropped, Snowball-stemmed) and BM25 scoring.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// BM25 parameters. `B` is below the usual 0.75: full length normalisation
/// favours short items, and memory is asked questions whose short echoes
/// ("what was the hardest part?") then beat the longer answer. On LoCoMo,
/// b = 0.5 gained 0.009 recall@5 (CHANGELOG.md, retrieval quality).
pub(crate) const K1: f32 = 1.2;
pub(crate) const B: f32 = 0.5;

/// Words too common to tell items apart. Question words are among them:
/// queries are questions, and matching "what"/"when" ranks the items that ask
/// something over the items that answer it (+0.015 recall@5 on LoCoMo).
/// Sorted, for a binary search rather than a comparison with each in turn
/// (the analysis is most of a fresh clone's first session start).
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do",
    "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "in", "is", "it",
    "its", "likely", "me", "my", "of", "on", "or", "our", "she", "should", "so", "that", "the",
    "their", "them", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which",
    "who", "whom", "whose", "why", "will", "with", "would", "you", "your",
];

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

thread_local! {
    /// Words this thread stemmed, and their stems ([`Analyzer::stem`]).
    static STEMS: std::cell::RefCell<HashMap<String, String>> = Default::default();
}

/// At most this many words are remembered a thread (a few MB).
const STEMS_KEPT: usize = 1 << 16;

/// Turns text into index terms.
pub struct Analyzer {
    stemmer: Stemmer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Analyzer {
    /// Terms of `text` in order, repeats kept (for term frequencies).
    pub fn terms(&self, text: &str) -> Vec<String> {
        text.unicode_words()
            .flat_map(split_identifier)
            .map(lower_case)
            .filter(|w| !is_stop_word(w))
            // A 1 MB item must not become a million postings of noise.
            .filter(|w| w.chars().count() <= 40)
            .map(|w| self.stem(&w))
            .collect()
    }

    /// Snowball's stem of `word`, remembered by this thread: memory says
    /// the same words again and again, and stemming them took a third of
    /// the analysis when a fresh clone's first session start indexed its
    /// knowledge (4,800 items).
    fn stem(&self, word: &str) -> String {
        STEMS.with_borrow_mut(|stems| {
            if let Some(stem) = stems.get(word) {
                return stem.clone();
            }
            let stem = self.stemmer.stem(word).into_owned();
            if stems.len() < STEMS_KEPT {
                stems.insert(word.to_string(), stem.clone());
            }
            stem
        })
    }

    /// Term -> frequency, and the document length in terms.
    pub fn term_frequencies(&self, text: &str) -> (HashMap<String, u32>, u32) {
        let terms = self.terms(text);
        let len = terms.len() as u32;
        let mut tf = HashMap::new();
        for t in terms {
            *tf.entry(t).or_insert(0) += 1;
        }
        (tf, len)
    }
}

/// `word` in lower case, copied unless it is ASCII with no capital (any
/// other word goes through `to_lowercase`, title-case letters included).
fn lower_case(word: &str) -> std::borrow::Cow<'_, str> {
    match word.is_ascii() && !word.bytes().any(|b| b.is_ascii_uppercase()) {
        true => std::borrow::Cow::Borrowed(word),
        false => std::borrow::Cow::Owned(word.to_lowercase()),
    }
}

/// `snake_case`, `dotted.names` and `camelCase` identifiers also match their
/// parts: `refreshToken` is found by "refresh token". The whole word is kept
/// too, so an exact identifier still scores highest.
fn split_identifier(word: &str) -> Vec<&str> {
    // Most words are plain: no part to find (and no list of characters to
    // build, which was a quarter of the analysis).
    let plain = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if word.bytes().all(|b| plain(&b)) {
        return vec![word];
    }
    let mut parts = vec![word];
    let mut start = 0;
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    for w in 1..chars.len() {
        let (i, c) = chars[w];
        let prev = chars[w - 1].1;
        let boundary = c == '_' || c == '.' || (c.is_uppercase() && prev.is_lowercase());
        if boundary {
            if i > start {
                parts.push(&word[start..i]);
            }
            start = if c == '_' || c == '.' {
                i + c.len_utf8()
            } else {
                i
            };
        }
    }
    if parts.len() > 1 && start < word.len() {
        parts.push(&word[start..]);
    }
    parts.retain(|p| !p.is_empty() && p.chars().any(char::is_alphanumeric));
    parts
}

/// BM25 weight of one term in one document.
pub(crate) fn bm25(tf: u32, doc_len: u32, avg_len: f32, df: u32, n_docs: u32) -> f32 {
    let idf = ((n_docs as f32 - df as f32 + 0.5) / (df as f32 + 0.5) + 1.0).ln();
    let tf = tf as f32;
    let norm = 1.0 - B + B * doc_len as f32 / avg_len.max(1.0);
    idf * tf * (K1 + 1.0) / (tf + K1 * norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_words_are_sorted_for_their_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn stems_lowercases_and_drops_stop_words() {
        let a = Analyzer::default();
        assert_eq!(a.terms("The Tests are Running"), vec!["test", "run"]);
    }

    #[test]
    fn identifiers_match_their_parts() {
        let a = Analyzer::default();
        let terms = a.terms("refreshToken snake_case");
        for want in [
            "refreshtoken",
            "refresh",
            "token",
            "snake_cas",
            "snake",
            "case",
        ] {
            assert!(
                terms.iter().any(|t| t == want),
                "{want} missing from {terms:?}"
            );
        }
    }

    #[test]
    fn rarer_terms_weigh_more() {
        assert!(bm25(1, 10, 10.0, 1, 100) > bm25(1, 10, 10.0, 50, 100));
        assert!(bm25(3, 10, 10.0, 5, 100) > bm25(1, 10, 10.0, 5, 100));
    }
}
