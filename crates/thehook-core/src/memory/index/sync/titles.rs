//! The learned check on session records. A title is not an item: it has no
//! stored vector, so the sync that writes a session's record embeds its
//! title (through the embedding cache, ahead of the write lock like the
//! items) and judges it. A sync that cannot (a hook's, which does not start
//! the model) keeps the title, and a gist whose item waits, from agents
//! until one that can judges them.

use std::collections::HashMap;

use heed::RwTxn;

use super::{vectors_for, Ahead, FileChange, SyncPlan, SyncStats};
use crate::error::Result;
use crate::memory::index::FileRecord;
use crate::memory::index::Index;
use crate::memory::session::{SessionRecord, WithheldTitle};
use crate::policy::released::Released;
use crate::store::title_id;
use crate::text::safety;

/// Session records before and after this sync, for the sessions list.
type Pairs = Vec<(Option<SessionRecord>, Option<SessionRecord>)>;

impl Index {
    /// The titles this sync will judge, to embed ahead: those of the
    /// changed session files, and with `waiting` those stored unjudged.
    pub(super) fn titles_to_check(
        &self,
        changes: &[FileChange],
        before: &HashMap<String, FileRecord>,
        waiting: bool,
    ) -> Result<Vec<String>> {
        let judged = |c: &FileChange, title: &str| {
            let was = before.get(&c.rel).and_then(|r| r.session.as_ref());
            was.is_some_and(|was| {
                was.title.as_deref() == Some(title)
                    || was
                        .withheld_title
                        .as_ref()
                        .is_some_and(|w| w.title == title)
            })
        };
        let mut titles: Vec<String> = changes
            .iter()
            .filter_map(|c| Some((c, c.session.as_ref()?.title.as_ref()?)))
            .filter(|(c, title)| !judged(c, title))
            .map(|(_, title)| title.clone())
            .collect();
        if waiting {
            let rtxn = self.env.read_txn()?;
            let stored = self.stored_sessions(&rtxn)?.unwrap_or_default();
            titles.extend(stored.into_iter().filter_map(|s| s.title_awaiting_check));
        }
        Ok(titles)
    }

    /// The records stored waiting for the check (a hook's sync wrote
    /// them), and with `all` every record with a title (the index was
    /// written without this model's check), but for those `batch` writes
    /// again: their titles judged, their gists made again from their items
    /// as this sync's backfill judged them. Rewrites their file records
    /// and returns them, before and after, for the sessions list.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_waiting_records(
        &self,
        wtxn: &mut RwTxn,
        plan: &SyncPlan,
        ahead: &Ahead,
        batch: &Pairs,
        all: bool,
        released: &Released,
        stats: &mut SyncStats,
    ) -> Result<Pairs> {
        let rewritten: std::collections::HashSet<&str> = batch
            .iter()
            .filter_map(|(_, now)| now.as_ref().map(|s| s.path.as_str()))
            .collect();
        let waiting: Vec<SessionRecord> = self
            .stored_sessions(wtxn)?
            .unwrap_or_default()
            .into_iter()
            .filter(|s| {
                s.awaiting_check || s.title_awaiting_check.is_some() || (all && s.title.is_some())
            })
            .filter(|s| !rewritten.contains(s.path.as_str()))
            .collect();
        let mut judged = waiting.clone();
        check_titles(
            plan,
            ahead,
            judged.iter_mut(),
            &HashMap::new(),
            released,
            stats,
        )?;
        let mut pairs = Vec::new();
        for (before, mut now) in waiting.into_iter().zip(judged) {
            // A file a rebuild has not written yet keeps no record here.
            let Some(mut record) = self.dbs.files.get(wtxn, &now.path)? else {
                continue;
            };
            // Its items, as this sync judged them (the backfill is written).
            let mut items = Vec::with_capacity(record.keys.len());
            for key in &record.keys {
                items.extend(self.dbs.items.get(wtxn, key)?);
            }
            now.judged(&items.iter().collect::<Vec<_>>());
            if now == before {
                continue;
            }
            record.session = Some(now.clone());
            self.dbs.files.put(wtxn, &now.path, &record)?;
            pairs.push((Some(before), Some(now)));
        }
        Ok(pairs)
    }
}

/// Judges the titles of `records` with the learned check (a released title
/// is given as it is). A title the record `before` holds for its file was
/// judged already: it keeps that verdict, and is not embedded again. A new
/// one, without the check but with the model there (a hook's sync), waits
/// for it; with neither, the rules' verdict from the parse stands.
pub(super) fn check_titles<'r>(
    plan: &SyncPlan,
    ahead: &Ahead,
    records: impl Iterator<Item = &'r mut SessionRecord>,
    before: &HashMap<String, FileRecord>,
    released: &Released,
    stats: &mut SyncStats,
) -> Result<()> {
    let records: Vec<&mut SessionRecord> = records
        .filter_map(|r| {
            let title = r.title.take().or(r.title_awaiting_check.take())?;
            match released.contains(&title_id(&r.path, &title)) {
                true => r.title = Some(title),
                false => r.title_awaiting_check = Some(title),
            }
            let was = before.get(&r.path).and_then(|f| f.session.as_ref());
            if let Some(was) = was {
                keep_verdict(r, was);
            }
            r.title_awaiting_check.is_some().then_some(r)
        })
        .collect();
    let Some(check) = plan.learned else {
        if !plan.checks_later() {
            // The rules only: the titles go to agents as they are.
            for record in records {
                record.title = record.title_awaiting_check.take();
            }
        }
        return Ok(());
    };
    let vectors: Vec<Option<Vec<f32>>> = match ahead {
        Ahead::Deferred => return Ok(()),
        // A hook's: the titles it judged now; the others wait.
        Ahead::ToJudge(by_text) => records
            .iter()
            .map(|r| by_text.get(r.title_awaiting_check.as_deref()?).cloned())
            .collect(),
        _ => {
            let texts: Vec<&str> = records
                .iter()
                .filter_map(|r| r.title_awaiting_check.as_deref())
                .collect();
            // Not items: counted in no item figure.
            let mut uncounted = SyncStats::default();
            let vectors = vectors_for(&plan.quiet(), ahead, &texts, &mut uncounted);
            stats.warnings.append(&mut uncounted.warnings);
            let Some(vectors) = vectors? else {
                return Ok(());
            };
            vectors.into_iter().map(Some).collect()
        }
    };
    for (record, vector) in records.into_iter().zip(vectors) {
        let Some(vector) = vector else { continue };
        let title = record.title_awaiting_check.take().unwrap_or_default();
        match safety::judge_with_vector(check, &title, &vector, None) {
            Some(withheld) => {
                let line = record.title_line;
                record.withheld_title = Some(WithheldTitle {
                    title,
                    line,
                    withheld,
                })
            }
            None => record.title = Some(title),
        }
    }
    Ok(())
}

/// A title read again (its file changed, or is written again by a
/// rebuild) keeps the check's verdict on the same title, if it had one.
fn keep_verdict(record: &mut SessionRecord, was: &SessionRecord) {
    let title = record.title_awaiting_check.as_deref();
    let withheld = was
        .withheld_title
        .as_ref()
        .filter(|w| Some(w.title.as_str()) == title);
    if let Some(withheld) = withheld {
        record.withheld_title = Some(withheld.clone());
        record.title_awaiting_check = None;
    } else if was.title.as_deref() == title {
        record.title = record.title_awaiting_check.take();
    }
}
