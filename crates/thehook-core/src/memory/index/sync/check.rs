//! The learned check inside a sync: every item a sync writes is judged on
//! the vector it has (new, or stored), beside the rules' verdict from the
//! parse; an item without one waits for it (`Item::awaiting_check`). A
//! sync that stores no vectors (a hook's) judges the first of what it adds
//! on vectors computed for the check alone ([`Index::judge_ahead`]).

use std::collections::{HashMap, HashSet};

use heed::RoTxn;
use rayon::prelude::*;

use super::plan::ItemPlan;
use super::{learned_check, Ahead, FileChange, SyncPlan, SyncStats};
use crate::error::Result;
use crate::memory::index::vectors::decode;
use crate::memory::index::{FileRecord, Index};
use crate::model::{self, Workload};
use crate::policy::released::Released;
use crate::store::item::Item;
use crate::text::safety::{self, learned::LearnedCheck, Rule};

/// The vectors a sync judges items on: those it embedded (of `embedded`,
/// in order; `None` without a model), and those it computed for the check
/// alone (`Ahead::ToJudge`).
pub(super) struct Vectors<'v> {
    pub embedded: &'v [(u32, Item)],
    pub vectors: Option<&'v [Vec<f32>]>,
    pub ahead: &'v Ahead,
}

impl Index {
    /// For a sync that stores no vectors but judges now (a hook's,
    /// `judge_now`): the learned check, and vectors of the built-in encoder
    /// for the first `judge_now` new titles and item texts of `changes`,
    /// in their order ([`Ahead::ToJudge`]). `None` when there is nothing to
    /// judge or no check for this model. The rest wait, counted in
    /// `stats.left_unjudged`.
    pub(super) fn judge_ahead(
        &self,
        plan: &SyncPlan,
        records: &HashMap<String, FileRecord>,
        changes: &[FileChange],
        stats: &mut SyncStats,
    ) -> Result<Option<(&'static LearnedCheck, Ahead)>> {
        if plan.judge_now == 0 || plan.embeds() {
            return Ok(None);
        }
        let Some(check) = learned_check(plan.availability) else {
            return Ok(None);
        };
        let mut texts: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        for change in changes {
            let one = std::slice::from_ref(change);
            let mut new = self.titles_to_check(one, records, false)?;
            new.extend(self.texts_to_embed(records, one, false)?);
            for text in new {
                if !seen.insert(text.clone()) {
                    continue;
                }
                match texts.len() < plan.judge_now {
                    true => texts.push(text),
                    false => stats.left_unjudged += 1,
                }
            }
        }
        if texts.is_empty() {
            return Ok(None);
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut encoder = model::load(plan.availability, threads, Workload::Query)?;
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = encoder.embed_batched(&refs)?;
        stats.judged_now = texts.len();
        Ok(Some((
            check,
            Ahead::ToJudge(texts.into_iter().zip(vectors).collect()),
        )))
    }

    /// Judges the items `plan` writes; returns those stored earlier that
    /// this sync embedded (a backfill), judged, to be written again.
    pub(super) fn check_items(
        &self,
        rtxn: &RoTxn<heed::WithoutTls>,
        sync: &SyncPlan,
        plan: &mut ItemPlan,
        vectors: Vectors,
        released: &Released,
    ) -> Result<Vec<(u32, Item)>> {
        let Vectors {
            embedded,
            vectors,
            ahead,
        } = vectors;
        let fresh: HashMap<u32, &[f32]> = embedded
            .iter()
            .map(|(key, _)| *key)
            .zip(vectors.unwrap_or_default().iter().map(Vec::as_slice))
            .collect();
        // A vector stored with the item, else one computed for the check.
        let vector_of = |key: &u32, item: &Item| {
            fresh.get(key).copied().or_else(|| match ahead {
                Ahead::ToJudge(by_text) => by_text.get(&item.text).map(Vec::as_slice),
                _ => None,
            })
        };
        let judge = |item: &mut Item, vector: Option<&[f32]>| match (sync.learned, vector) {
            (Some(check), Some(vector)) if vector.len() == check.dims => {
                judge_item(check, item, vector, released)
            }
            _ => item.awaiting_check = sync.checks_later(),
        };
        // In parallel: a rebuild judges every item here.
        plan.added.par_iter_mut().for_each(|(key, item)| {
            let vector = vector_of(key, item);
            judge(item, vector)
        });
        for ((key, item), (_, was)) in plan.kept.iter_mut().zip(&plan.kept_before) {
            // A hook's sync runs no check: no stored vector is read for it.
            let stored = match (sync.learned, fresh.get(key)) {
                (Some(_), None) => self.dbs.vectors.get(rtxn, key)?.map(decode),
                _ => None,
            };
            match fresh.get(key).copied().or(stored.as_deref()) {
                Some(vector) if sync.learned.is_some() => judge(item, Some(vector)),
                // Same id, same text: the verdict it was stored with holds.
                _ => keep_verdict(item, was, released),
            }
        }
        let written: std::collections::HashSet<u32> = plan
            .added
            .iter()
            .chain(&plan.kept)
            .map(|(k, _)| *k)
            .collect();
        let mut backfilled = Vec::new();
        for (key, item) in embedded.iter().filter(|(key, _)| !written.contains(key)) {
            let mut item = item.clone();
            judge(&mut item, fresh.get(key).copied());
            backfilled.push((*key, item));
        }
        Ok(backfilled)
    }
}

/// The rules' verdict (from the parse) with the learned check's beside it.
fn judge_item(check: &LearnedCheck, item: &mut Item, vector: &[f32], released: &Released) {
    item.awaiting_check = false;
    if released.contains(&item.id) {
        return;
    }
    let by_rule = item.withheld.take().filter(|w| w.rule != Rule::Learned);
    item.withheld = safety::judge_with_vector(check, &item.text, vector, by_rule);
}

/// An item read again without a vector to judge it by keeps what the
/// check said of it before, unless a person released it since.
fn keep_verdict(item: &mut Item, was: &Item, released: &Released) {
    if released.contains(&item.id) {
        return;
    }
    item.awaiting_check = was.awaiting_check;
    if item.withheld.is_none() {
        item.withheld = was.withheld.clone().filter(|w| w.rule == Rule::Learned);
    }
}
