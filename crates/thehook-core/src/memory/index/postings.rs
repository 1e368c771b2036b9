//! BM25 over the index's postings, with replies sharing the score of the
//! question they answer.

use heed::WithoutTls;

use super::{Filter, Header, Index};
use crate::error::Result;
use crate::store::item::Item;
use crate::text::analysis::lexical::bm25;

/// The share of an asking item's BM25 score its reply gets: a reply rarely
/// repeats the words of the question it answers. A simulation of this
/// ranking on LoCoMo gained +0.042 (worst format) at 0.5, +0.043 at 0.7 and
/// +0.044 at 1.0; 0.7 did best combined with the other changes it tried.
/// Through the binary, 0.7 gave +0.048.
const REPLY_SHARE: f32 = 0.7;

/// An item BM25 found, with its score and how many of the query's distinct
/// terms it holds (its postings say: they are the terms of its text).
#[derive(Debug)]
pub(crate) struct Match {
    pub item: Item,
    pub score: f32,
    pub shared_terms: usize,
}

impl Index {
    /// The distinct terms of `query`, sorted: what BM25 searches with.
    pub(crate) fn query_terms(&self, query: &str) -> Vec<String> {
        let mut terms = self.analyzer.terms(query);
        terms.sort();
        terms.dedup();
        terms
    }

    /// The `limit` best BM25 matches of a query's `terms` ([`Index::query_terms`])
    /// that `filter` accepts, with the terms each shares with it, in one read
    /// transaction.
    pub(crate) fn words_shared(
        &self,
        terms: &[String],
        limit: usize,
        filter: &Filter,
    ) -> Result<Vec<Match>> {
        let rtxn = self.env.read_txn()?;
        match self.dbs.header.get(&rtxn, "header")? {
            Some(header) => self.lexical_matches(&rtxn, &header, terms, limit, filter),
            None => Ok(Vec::new()),
        }
    }

    /// The `limit` best BM25 matches of a query's `terms` that `filter`
    /// accepts.
    pub(super) fn lexical_matches(
        &self,
        rtxn: &heed::RoTxn<WithoutTls>,
        header: &Header,
        terms: &[String],
        limit: usize,
        filter: &Filter,
    ) -> Result<Vec<Match>> {
        let avg_len = header.total_len as f32 / header.n_docs.max(1) as f32;
        // Scores by key in a dense array (keys are handed out in order, so
        // it is as long as the index has had items): adding a posting is an
        // index, not a hash. A session start's query meets a good share of
        // a team's year through its common words.
        let mut scores = Scores::new(header.next_key);
        for term in terms {
            let Some(bytes) = self.dbs.postings.get(rtxn, term)? else {
                continue;
            };
            let df = (bytes.len() / 12) as u32;
            for (key, tf, len) in postings(bytes) {
                scores.add(key, bm25(tf, len, avg_len, df, header.n_docs));
                scores.shared[key as usize] += 1;
            }
        }
        // Replies share their question's match, found or not on their own.
        // Most projects have none: then no key is looked up.
        let mut shares = Vec::new();
        let any_replies = !self.dbs.replies.is_empty(rtxn)?;
        for &question in scores.touched.iter().filter(|_| any_replies) {
            if let Some(reply) = self.dbs.replies.get(rtxn, &question)? {
                shares.push((reply, REPLY_SHARE * scores.dense[question as usize]));
            }
        }
        for (reply, share) in shares {
            scores.add(reply, share);
        }
        let mut ranked: Vec<(u32, f32)> = scores
            .touched
            .iter()
            .map(|&key| (key, scores.dense[key as usize]))
            .collect();
        // Best first, ties by key; sorted a run at a time, since the filter
        // seldom passes over more than a few.
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let run = (limit * 2).max(64);
        let mut out = Vec::with_capacity(limit);
        let mut start = 0;
        while out.len() < limit && start < ranked.len() {
            let end = (start + run).min(ranked.len());
            if end < ranked.len() {
                ranked[start..].select_nth_unstable_by(end - start - 1, order);
            }
            ranked[start..end].sort_by(order);
            for &(key, score) in &ranked[start..end] {
                if out.len() == limit {
                    break;
                }
                if let Some(item) = self.dbs.items.get(rtxn, &key)? {
                    if filter.accepts(&item) {
                        out.push(Match {
                            item,
                            score,
                            shared_terms: scores.shared[key as usize] as usize,
                        });
                    }
                }
            }
            start = end;
        }
        Ok(out)
    }
}

/// BM25 scores being summed, by item key.
struct Scores {
    dense: Vec<f32>,
    seen: Vec<bool>,
    /// The query's terms each key holds.
    shared: Vec<u32>,
    /// The keys with a score, each once, in the order first scored.
    touched: Vec<u32>,
}

impl Scores {
    fn new(next_key: u32) -> Scores {
        Scores {
            dense: vec![0.0; next_key as usize],
            seen: vec![false; next_key as usize],
            shared: vec![0; next_key as usize],
            touched: Vec::new(),
        }
    }

    fn add(&mut self, key: u32, score: f32) {
        let at = key as usize;
        if at >= self.dense.len() {
            // A key the header has not counted (never written so): grown.
            self.dense.resize(at + 1, 0.0);
            self.seen.resize(at + 1, false);
            self.shared.resize(at + 1, 0);
        }
        if !self.seen[at] {
            self.seen[at] = true;
            self.touched.push(key);
        }
        self.dense[at] += score;
    }
}

/// Postings are packed `(key, term frequency, document length)` triples of
/// little-endian u32, sorted by key.
fn postings(bytes: &[u8]) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
    bytes.chunks_exact(12).map(|c| {
        let at = |i: usize| u32::from_le_bytes(c[i..i + 4].try_into().expect("4 bytes"));
        (at(0), at(4), at(8))
    })
}

pub(super) fn decode_postings(bytes: &[u8]) -> Vec<(u32, u32, u32)> {
    postings(bytes).collect()
}

pub(super) fn encode_postings(postings: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 12);
    for (k, tf, len) in postings {
        out.extend_from_slice(&k.to_le_bytes());
        out.extend_from_slice(&tf.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
    }
    out
}
