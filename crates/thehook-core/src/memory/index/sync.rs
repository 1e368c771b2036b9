//! Bringing the index up to date with the markdown, file by file: unchanged
//! files cost one `stat`, changed files are re-parsed, and only items whose
//! text is new are embedded.
//!
//! A sync **diffs** the files against their records, **parses** the changed
//! ones and **embeds** the items they add, all before taking the write lock
//! (embedding a rebuild takes minutes; the hooks must not wait for it). Then
//! it **applies** them in transactions of about [`BATCH_ITEMS`] items, each
//! one planning which items arrive, stay or leave ([`plan`]) against the
//! records as they are then, and writing every database ([`apply`]); the
//! last builds arroy's trees. A model failure changes nothing.
mod apply;
mod check;
mod first;
mod plan;
mod titles;

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use super::{FileRecord, Header, Index};
use crate::error::{Error, Result};
use crate::mapped_pages;
use crate::memory::session::SessionRecord;
use crate::model::{embed_all, Availability, EmbeddingCache};
use crate::policy::released::Released;
use crate::policy::verify::{self, Verifier};
use crate::project::Project;
use crate::store::item::Item;
use crate::store::{
    list_sources, read_source, read_source_hashed, source_file, title_id, ParsedFile, SourceFile,
    Stamp, RACY_WINDOW_NS,
};
use crate::text::safety::learned::{self, LearnedCheck};
pub use first::Focus;
use plan::ItemPlan;

/// How many of the items a sync adds get their vector before it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedding {
    /// Every one (a worker, a rebuild, a long-lived process).
    All,
    /// At most this many; beyond it, none, and the items are found by
    /// their words until a sync with [`Embedding::All`] embeds them.
    /// A pull of many sessions would otherwise hold the next answer for as
    /// long as embedding them takes.
    AtMost(usize),
    /// None: the model is not started (a hook cannot wait for it); the
    /// items wait for the next sync that embeds, and for the learned check.
    Later,
}

/// How a sync runs, as the index reads it (`memory::SyncPolicy` builds it).
pub(crate) struct SyncPlan<'a> {
    /// The model: `Ready` to embed; `Missing` for a lexical-only index.
    pub availability: &'a Availability,
    /// How many new items are embedded now ([`SyncStats::vectors_missing`]
    /// says when some wait).
    pub embedding: Embedding,
    /// Start from an empty index (cleared in the same transaction as the
    /// first batch, so readers never see it empty; they see the files of
    /// the batches written so far until the last commits).
    pub rebuild: bool,
    /// Called with (items embedded so far, items to embed).
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
    /// New session files indexed at most, beside the knowledge and every
    /// file indexed before that changed or went (a hook; the session
    /// start's detached half syncs the rest): those of `focus` first.
    pub max_files: Option<usize>,
    /// What the answer after this sync is about, when `max_files` leaves
    /// some files for later.
    pub focus: Option<&'a Focus>,
    /// Look at these files only (project-relative), not the folders: those
    /// an answer cites, checked before it is given. The stamp is kept.
    pub only: Option<&'a [String]>,
    /// New item texts and titles judged now by the learned check, on
    /// vectors of the built-in encoder that are not stored, when this sync
    /// embeds nothing (a hook's): what changed is given at once.
    pub judge_now: usize,
    /// Trust the folders' stamp: when no folder and no knowledge file moved
    /// since the last sync, list nothing (the hooks; see [`Stamp`]).
    pub quick: bool,
    /// Items written per transaction, about ([`BATCH_ITEMS`]).
    pub batch_items: usize,
    /// The learned check that reads the vectors this sync computes, if any.
    pub learned: Option<&'static LearnedCheck>,
    /// `trust.authors`: whose committed action lines are given to agents
    /// (`policy::verify`); empty: the project's own authors.
    pub trusted_authors: &'a [String],
}

impl SyncPlan<'_> {
    /// This plan, reporting no progress: for what is not items (titles),
    /// which the progress of a sync does not count.
    fn quiet(&self) -> Self {
        SyncPlan {
            progress: &|_, _| {},
            ..*self
        }
    }

    /// Whether this sync computes vectors: a model at hand, and asked to.
    fn embeds(&self) -> bool {
        matches!(self.availability, Availability::Ready { .. })
            && self.embedding != Embedding::Later
    }

    /// Items this sync embeds at most.
    fn embed_limit(&self) -> Option<usize> {
        match self.embedding {
            Embedding::AtMost(limit) => Some(limit),
            Embedding::All | Embedding::Later => None,
        }
    }

    /// Whether an item stored without a vector waits for the learned
    /// check: the model has one, run now or by a later sync.
    fn checks_later(&self) -> bool {
        learned_check(self.availability).is_some()
    }
}

impl<'a> SyncPlan<'a> {
    /// A sync of every changed file that embeds with `availability` as
    /// `embedding` says.
    pub(crate) fn new(
        availability: &'a Availability,
        embedding: Embedding,
        progress: &'a (dyn Fn(usize, usize) + Sync),
    ) -> Self {
        SyncPlan {
            availability,
            embedding,
            rebuild: false,
            progress,
            max_files: None,
            focus: None,
            only: None,
            judge_now: 0,
            quick: false,
            batch_items: BATCH_ITEMS,
            // Not read for a sync that embeds nothing: parsing the check
            // costs a hook whose sync finds nothing to write.
            learned: (embedding != Embedding::Later)
                .then(|| learned_check(availability))
                .flatten(),
            trusted_authors: &[],
        }
    }
}

/// The learned check for `availability`'s model, if it ships one.
pub(crate) fn learned_check(availability: &Availability) -> Option<&'static LearnedCheck> {
    match availability {
        Availability::Ready { model, .. } => learned::check_for(model),
        Availability::Missing { .. } => None,
    }
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SyncStats {
    pub files_changed: usize,
    pub items_added: usize,
    pub items_removed: usize,
    pub items_embedded: usize,
    /// Items whose vector came from the embedding cache, not the model.
    pub items_cached: usize,
    /// New items stored without a vector because of [`Embedding::AtMost`].
    pub embeddings_deferred: usize,
    /// Files left unsynced because of `max_files`.
    pub files_postponed: usize,
    /// New item texts and titles the learned check judged on vectors
    /// computed for it alone (`judge_now`).
    pub judged_now: usize,
    /// New item texts and titles left waiting for the learned check:
    /// beyond `judge_now`, no agent is given them until a sync embeds them.
    pub left_unjudged: usize,
    /// Items wait for vectors that this sync did not compute: a sync
    /// without limits should run.
    pub vectors_missing: bool,
    /// Findings about the markdown (bad front matter, non-UTF-8 bytes...).
    pub warnings: Vec<String>,
}

/// A markdown file that is new, changed or gone, with its items now.
struct FileChange {
    rel: String,
    /// `None`: the file is gone.
    source: Option<SourceFile>,
    items: Vec<Item>,
    /// `(question, reply)` indices into `items`.
    replies: Vec<(usize, usize)>,
    /// A session file's facts.
    session: Option<SessionRecord>,
    /// The SHA-256 of the bytes read (hex).
    sha256: Option<String>,
    /// An item asks for an action (`policy::verify`).
    asks: bool,
}

impl Index {
    /// Makes the index match the markdown of `project`. A full disk is said
    /// as such ([`Error::when_disk_full`]).
    pub(crate) fn sync(&self, project: &Project, plan: &SyncPlan) -> Result<SyncStats> {
        self.sync_markdown(project, plan)
            .map_err(|e| e.when_disk_full(&project.index_dir()))
    }

    fn sync_markdown(&self, project: &Project, plan: &SyncPlan) -> Result<SyncStats> {
        let mut stats = SyncStats::default();
        // Nothing moved and no vector is due: nothing to do. With items
        // waiting for vectors and the model at hand (a recall), the sync
        // goes on to embed them or to say they wait.
        let header = self.header()?;
        // What the verdicts on action lines depend on beside their files.
        let trust = verify::trust_stamp(project);
        let trust_held = header
            .as_ref()
            .and_then(|h| h.trust.as_ref())
            .is_some_and(|t| Some(t) == trust.as_ref());
        if plan.quick && !plan.rebuild && plan.only.is_none() && trust_held {
            if let Some(header) = &header {
                let ready = plan.embeds();
                let due = ready && needs_backfill(header, plan.availability);
                if !due && header.stamp.as_ref().is_some_and(|s| s.holds(project)) {
                    return Ok(stats);
                }
            }
        }
        if !trust_held && !plan.rebuild && plan.only.is_none() {
            self.reread_asking()?;
        }
        let (sources, stamp) = match plan.only {
            Some(rels) => {
                let files = rels.iter().filter_map(|r| source_file(project, r));
                (files.collect(), self.header()?.and_then(|h| h.stamp))
            }
            None => {
                let listing = list_sources(project, &mut stats.warnings);
                (listing.files, listing.stamp)
            }
        };
        let sources = &sources;
        let embedding = plan.embeds();
        // Cheap check under a read transaction: most calls change nothing.
        let due = embedding
            && self
                .header()?
                .is_some_and(|h| needs_backfill(&h, plan.availability));
        let backfill_due = due && self.backfill_fits(plan, &self.env.read_txn()?)?;
        stats.vectors_missing = due && !backfill_due;
        // A rebuild writes every file again, as into an empty index.
        let records = match (plan.rebuild, plan.only) {
            (true, _) => HashMap::new(),
            (false, Some(rels)) => self.records_of(rels)?,
            (false, None) => self.file_records()?,
        };
        let changed = changed_files(sources, &records);
        if !plan.rebuild && !backfill_due && changed.is_empty() {
            self.keep_stamp(stamp, trust.filter(|_| plan.only.is_none()))?;
            return Ok(stats);
        }
        // Parse and embed before taking the write lock: embedding a pull or
        // a rebuild takes minutes, and the hooks would wait for it.
        let released = Released::load(project);
        let changes = match plan.max_files.filter(|_| !plan.rebuild) {
            // More changed than a hook indexes while the agent waits (a
            // pull): what its answer needs first, the rest left for later.
            Some(max) => {
                let first = first::read_first(changed, &records, plan.focus, max, &released);
                stats.files_postponed = first.left;
                stats.warnings.extend(first.warnings);
                first.changes
            }
            None => read_changes(changed, &released, &mut stats.warnings),
        };
        let mut changes = changes;
        let verifier = Verifier::new(project.root(), plan.trusted_authors);
        changes.par_iter_mut().for_each(|change| {
            change.asks = verifier.judge_file(&change.rel, &mut change.items, &released);
        });
        let backfill_ahead = backfill_due && !plan.rebuild;
        let judging = self.judge_ahead(plan, &records, &changes, &mut stats)?;
        let judged_plan;
        let (plan, ahead) = match judging {
            Some((check, ahead)) => {
                judged_plan = SyncPlan {
                    learned: Some(check),
                    ..*plan
                };
                (&judged_plan, ahead)
            }
            None => {
                let ahead =
                    self.embed_ahead(plan, &records, &changes, backfill_ahead, &mut stats)?;
                (plan, ahead)
            }
        };
        // Then write in transactions of about `BATCH_ITEMS` items each, so
        // that memory does not grow with the corpus; in path order, judged
        // in the answer's (above), so new items get the keys a full sync
        // would give them (BM25 breaks ties by key).
        changes.sort_by(|a, b| a.rel.cmp(&b.rel));
        let batches = in_batches(changes, plan.batch_items);
        let last = batches.len() - 1;
        for (n, batch) in batches.into_iter().enumerate() {
            let step = Batch {
                changes: batch,
                first: n == 0,
                last: n == last,
                trust: trust.clone().filter(|_| plan.only.is_none()),
            };
            self.apply_batch(plan, step, &ahead, stamp.clone(), &released, &mut stats)?;
        }
        Ok(stats)
    }

    /// Embeds the items this sync will add (all of them for a rebuild),
    /// and with `backfill` those stored without a vector, with no write
    /// lock held: into the embedding cache, where the batches read them;
    /// without one, into memory. None when they are more than
    /// [`Embedding::AtMost`]: the batches store their items without vectors.
    fn embed_ahead(
        &self,
        plan: &SyncPlan,
        records: &HashMap<String, FileRecord>,
        changes: &[FileChange],
        backfill: bool,
        stats: &mut SyncStats,
    ) -> Result<Ahead> {
        if !plan.embeds() {
            return Ok(Ahead::Nothing);
        }
        let texts = self.texts_to_embed(records, changes, backfill)?;
        if plan.embed_limit().is_some_and(|limit| texts.len() > limit) {
            return Ok(Ahead::Deferred);
        }
        let items = embed_ahead_into(plan, &texts, stats)?;
        if plan.learned.is_none() {
            return Ok(items);
        }
        // Titles are not items: embedded beside them, counted in no item
        // figure.
        let titles = self.titles_to_check(changes, records, backfill)?;
        let mut uncounted = SyncStats::default();
        let titles = embed_ahead_into(&plan.quiet(), &titles, &mut uncounted)?;
        stats.warnings.append(&mut uncounted.warnings);
        Ok(match (items, titles) {
            (Ahead::Kept(mut by_text), Ahead::Kept(more)) => {
                by_text.extend(more);
                Ahead::Kept(by_text)
            }
            // A cache that failed for either: what is not in memory is
            // read from the cache or embedded by the batch.
            (Ahead::Kept(by_text), _) | (_, Ahead::Kept(by_text)) => Ahead::Kept(by_text),
            (items, _) => items,
        })
    }

    /// The texts of the items a sync of `changes` adds (those whose id
    /// their file's record does not hold), and with `backfill` of those
    /// stored without a vector. No item is copied: at a rebuild they are
    /// every item of the project.
    fn texts_to_embed(
        &self,
        records: &HashMap<String, FileRecord>,
        changes: &[FileChange],
        backfill: bool,
    ) -> Result<Vec<String>> {
        let rtxn = self.env.read_txn()?;
        let mut texts = Vec::new();
        for change in changes {
            let mut before = HashSet::new();
            for key in records.get(&change.rel).map_or(&[][..], |r| &r.keys) {
                if let Some(item) = self.dbs.items.get(&rtxn, key)? {
                    before.insert(item.id);
                }
            }
            let new = change.items.iter().filter(|i| !before.contains(&i.id));
            texts.extend(new.map(|i| i.text.clone()));
        }
        if backfill {
            for key in self.keys_without_vectors(&rtxn)? {
                if let Some(item) = self.dbs.items.get(&rtxn, &key)? {
                    texts.push(item.text);
                }
            }
        }
        Ok(texts)
    }

    /// One write transaction of a sync: `batch`'s files that still differ
    /// from their records (another process may have synced some), with
    /// their vectors from `ahead` (or embedded now, when a file changed
    /// again since). The first clears the index of a rebuild and embeds the
    /// backfill; the last builds arroy's trees and records the `stamp`.
    fn apply_batch(
        &self,
        plan: &SyncPlan,
        batch: Batch,
        ahead: &Ahead,
        stamp: Option<Stamp>,
        released: &Released,
        stats: &mut SyncStats,
    ) -> Result<()> {
        let embedding = plan.embeds();
        let mut wtxn = self.env.write_txn()?;
        if batch.first && plan.rebuild {
            self.clear_in(&mut wtxn, &plan.availability.fingerprint())?;
        }
        let records = self.records_in(&wtxn)?;
        let mut changes: Vec<FileChange> = batch
            .changes
            .into_iter()
            .filter(|c| still_changed(c, &records))
            .collect();
        let mut header: Header = self
            .dbs
            .header
            .get(&wtxn, "header")?
            .ok_or_else(|| Error::damaged_index("the header is missing"))?;
        let due = embedding && needs_backfill(&header, plan.availability);
        let other_model = header.fingerprint != plan.availability.fingerprint();
        let backfill = batch.first && due && self.backfill_fits(plan, &wtxn)?;
        stats.files_changed += changes.len();

        let sessions = changes.iter_mut().filter_map(|c| c.session.as_mut());
        titles::check_titles(plan, ahead, sessions, &records, released, stats)?;
        let mut items = ItemPlan::new(self, &wtxn, &records, &changes, &mut header)?;
        let to_embed = items.to_embed(self, &wtxn, backfill)?;
        let over_limit = plan
            .embed_limit()
            .is_some_and(|limit| to_embed.len() > limit);
        let to_embed = if over_limit || matches!(ahead, Ahead::Deferred) {
            stats.embeddings_deferred += to_embed.len();
            Vec::new()
        } else {
            to_embed
        };
        // Embed before touching the databases, so a model failure changes nothing.
        let texts: Vec<&str> = to_embed.iter().map(|(_, i)| i.text.as_str()).collect();
        let vectors = vectors_for(plan, ahead, &texts, stats)?;
        let backfilled = self.check_items(
            &wtxn,
            plan,
            &mut items,
            check::Vectors {
                embedded: &to_embed,
                vectors: vectors.as_deref(),
                ahead,
            },
            released,
        )?;

        items.judge_sessions();
        self.apply_items(&mut wtxn, &items, &mut header)?;
        for (key, item) in &backfilled {
            self.dbs.items.put(&mut wtxn, key, item)?;
        }
        self.apply_vectors(
            &mut wtxn,
            &items.removed,
            &to_embed,
            vectors.as_deref(),
            &mut header,
            batch.last,
        )?;
        // Only a sync that left no item without its vector may say so.
        let complete = embedding && (backfill || !due) && stats.embeddings_deferred == 0;
        if complete {
            header.fingerprint = plan.availability.fingerprint();
            header.missing_vectors = false;
        } else if !items.added.is_empty() {
            header.missing_vectors = true;
        }
        stats.vectors_missing = embedding && needs_backfill(&header, plan.availability);
        self.apply_records(&mut wtxn, &items.records)?;
        let mut sessions = std::mem::take(&mut items.sessions);
        if backfill && plan.learned.is_some() {
            let waited = self.check_waiting_records(
                &mut wtxn,
                plan,
                ahead,
                &sessions,
                other_model,
                released,
                stats,
            )?;
            sessions.extend(waited);
        }
        if plan.rebuild {
            // The list and the keys once, from every record, in the last
            // transaction: written in each, the list alone (a team's year:
            // 1.7 MB) was written about six times over. Until then they
            // are absent, and what reads them reads the records or finds
            // none, as of a rebuild partly written; never a list that
            // disagrees with the records (a hook's sync in between may
            // have written one).
            match batch.last {
                true => self.rewrite_sessions(&mut wtxn)?,
                false => self.forget_sessions(&mut wtxn)?,
            }
        } else if !sessions.is_empty() {
            self.update_sessions(&mut wtxn, &sessions)?;
        }
        // A stamp says every file is synced: only the last batch may say so,
        // and not when some were left.
        header.stamp = stamp.filter(|_| batch.last && stats.files_postponed == 0);
        if batch.last {
            // A recheck of cited files leaves the verdicts' stamp as it was.
            header.trust = batch.trust.or(header.trust);
        }
        self.dbs.header.put(&mut wtxn, "header", &header)?;
        wtxn.commit()?;
        // What this batch read through the map need not stay resident
        // while the next is parsed and embedded. A sync of one transaction
        // (every hook's) ends before that matters.
        if !(batch.first && batch.last) {
            mapped_pages::let_go(&self.path);
        }
        stats.items_added += items.added.len();
        stats.items_removed += items.removed.len();
        Ok(())
    }

    /// Records `stamp` for the next quick check, and `trust` for the
    /// verdicts, writing only when either differs from the one recorded
    /// (most syncs change nothing).
    fn keep_stamp(&self, stamp: Option<Stamp>, trust: Option<Stamp>) -> Result<()> {
        let Some(recorded) = self.header()? else {
            return Ok(());
        };
        let new_stamp = stamp.is_some() && stamp != recorded.stamp;
        let new_trust = trust.is_some() && trust != recorded.trust;
        if !new_stamp && !new_trust {
            return Ok(());
        }
        let mut wtxn = self.env.write_txn()?;
        if let Some(mut header) = self.dbs.header.get(&wtxn, "header")? {
            header.stamp = stamp.or(header.stamp);
            header.trust = trust.or(header.trust);
            self.dbs.header.put(&mut wtxn, "header", &header)?;
        }
        Ok(wtxn.commit()?)
    }

    /// Whether the items waiting for vectors are few enough to embed in
    /// this sync (always, without a limit).
    fn backfill_fits(&self, plan: &SyncPlan, rtxn: &heed::RoTxn<heed::WithoutTls>) -> Result<bool> {
        Ok(match plan.embed_limit() {
            None => true,
            Some(limit) => self.keys_without_vectors(rtxn)?.len() <= limit as u64,
        })
    }

    /// The records of `rels` that the index holds.
    fn records_of(&self, rels: &[String]) -> Result<HashMap<String, FileRecord>> {
        let rtxn = self.env.read_txn()?;
        let mut records = HashMap::new();
        for rel in rels {
            if let Some(record) = self.dbs.files.get(&rtxn, rel)? {
                records.insert(rel.clone(), record);
            }
        }
        Ok(records)
    }

    /// Those of `rels` (markdown files an answer cites) that differ from
    /// their records: edited, gone or not indexed. A stat and a record
    /// read each, so an answer checks what it gives, whatever the stamp
    /// says: a session file edited in place moves no folder.
    pub(crate) fn differing(&self, project: &Project, rels: &[String]) -> Result<Vec<String>> {
        let records = self.records_of(rels)?;
        Ok(rels
            .iter()
            .filter(|rel| match (source_file(project, rel), records.get(*rel)) {
                (Some(source), Some(record)) => !plan::unchanged(record, &source),
                (None, None) => false,
                _ => true,
            })
            .cloned()
            .collect())
    }

    /// Every file record, read in the sync's own transaction.
    fn records_in(&self, wtxn: &heed::RwTxn) -> Result<HashMap<String, FileRecord>> {
        let mut records = HashMap::new();
        for entry in self.dbs.files.iter(wtxn)? {
            let (k, v) = entry?;
            records.insert(k.to_string(), v);
        }
        Ok(records)
    }
}

/// Files that are new, changed (size or mtime) or gone, in path order.
fn changed_files(
    sources: &[SourceFile],
    records: &HashMap<String, FileRecord>,
) -> Vec<(String, Option<SourceFile>)> {
    let mut out = Vec::new();
    let present: HashSet<&str> = sources.iter().map(|s| s.rel.as_str()).collect();
    for s in sources {
        let same = records.get(&s.rel).is_some_and(|r| plan::unchanged(r, s));
        if !same {
            out.push((s.rel.clone(), Some(s.clone())));
        }
    }
    let mut gone: Vec<&String> = records
        .keys()
        .filter(|k| !present.contains(k.as_str()))
        .collect();
    gone.sort();
    out.extend(gone.into_iter().map(|k| (k.clone(), None)));
    out
}

/// Parses the changed files, spread over the cores (each is independent).
/// A file that cannot be read now is left out: its items stay as indexed.
fn read_changes(
    changed: Vec<(String, Option<SourceFile>)>,
    released: &Released,
    warnings: &mut Vec<String>,
) -> Vec<FileChange> {
    let now = jiff::Timestamp::now().as_nanosecond();
    let parsed: Vec<_> = changed
        .into_par_iter()
        .map(|(rel, source)| {
            // Only a file too new to trust its mtime keeps its bytes' hash.
            let read = source
                .as_ref()
                .map(|s| match now - s.mtime_ns < RACY_WINDOW_NS {
                    true => read_source_hashed(s).map(|(file, sha256)| (file, Some(sha256))),
                    false => read_source(s).map(|file| (file, None)),
                });
            (rel, source, read)
        })
        .collect();
    let mut changes = Vec::with_capacity(parsed.len());
    for (rel, source, read) in parsed {
        let (items, replies, session, sha256) = match read {
            Some(Ok((mut file, sha256))) => {
                release(&rel, &mut file, released);
                let session = rel
                    .starts_with(crate::project::SESSIONS_PREFIX)
                    .then(|| SessionRecord::of(&rel, &file))
                    .flatten();
                warnings.append(&mut file.warnings);
                (file.items, file.replies, session, sha256)
            }
            Some(Err(e)) => {
                warnings.push(format!("{e}; its items are left as they were"));
                continue;
            }
            None => (Vec::new(), Vec::new(), None, None),
        };
        changes.push(FileChange {
            rel,
            source,
            items,
            replies,
            session,
            sha256,
            asks: false,
        });
    }
    changes
}

/// [`Index::embed_ahead`] of `texts`: into the embedding cache, else into
/// memory.
fn embed_ahead_into(plan: &SyncPlan, texts: &[String], stats: &mut SyncStats) -> Result<Ahead> {
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let fingerprint = plan.availability.fingerprint();
    let cache = open_cache(plan, stats);
    let missing = cache.as_ref().and_then(|c| {
        c.missing(&fingerprint, &texts)
            .map_err(|e| {
                let warning = format!("the embedding cache: {e}; embedding without it");
                stats.warnings.push(warning)
            })
            .ok()
    });
    if let (Some(cache), Some(missing)) = (&cache, missing) {
        stats.items_cached += texts.len() - missing.len();
        let missing: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
        if embed_into(plan, Some(cache), &missing, stats, |_, _| {})? {
            return Ok(Ahead::InCache);
        }
    }
    let mut by_text = HashMap::new();
    embed_into(plan, None, &texts, stats, |chunk, vectors| {
        for (&i, vector) in chunk.iter().zip(vectors) {
            by_text.insert(texts[i].to_string(), vector);
        }
    })?;
    Ok(Ahead::Kept(by_text))
}

/// The embedding cache of `plan`'s model, if it has one and it opens (a
/// warning says why not).
fn open_cache(plan: &SyncPlan, stats: &mut SyncStats) -> Option<EmbeddingCache> {
    let dir = plan.availability.embedding_cache()?;
    EmbeddingCache::open(dir)
        .map_err(|e| stats.warnings.push(format!("{e}; embedding without it")))
        .ok()
}

/// The vectors of `texts`, in order, or `None` without a model: from
/// the embedding cache where it has them, else from the model (and kept in
/// the cache, a chunk at a time). A cache that fails is left out, said in a
/// warning.
fn embed(plan: &SyncPlan, texts: &[&str], stats: &mut SyncStats) -> Result<Option<Vec<Vec<f32>>>> {
    if !plan.embeds() || texts.is_empty() {
        return Ok(None);
    }
    let fingerprint = plan.availability.fingerprint();
    let cache = open_cache(plan, stats);
    let mut vectors: Vec<Option<Vec<f32>>> = match &cache {
        Some(cache) => cache.get(&fingerprint, texts).unwrap_or_else(|e| {
            stats
                .warnings
                .push(format!("the embedding cache: {e}; embedding without it"));
            vec![None; texts.len()]
        }),
        None => vec![None; texts.len()],
    };
    if let Some(cache) = &cache {
        cache.let_go_of_read_pages();
    }
    let missing: Vec<usize> = (0..texts.len()).filter(|&i| vectors[i].is_none()).collect();
    stats.items_cached += texts.len() - missing.len();
    let missing_texts: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
    embed_into(
        plan,
        cache.as_ref(),
        &missing_texts,
        stats,
        |chunk, embedded| {
            for (&i, vector) in chunk.iter().zip(embedded) {
                vectors[missing[i]] = Some(vector);
            }
        },
    )?;
    let got = vectors.iter().flatten().count();
    let vectors: Option<Vec<Vec<f32>>> = vectors.into_iter().collect();
    vectors
        .map(Some)
        .ok_or_else(|| thehook_embed::Error::vector_count(texts.len(), got).into())
}

/// Embeds `texts` with the model into `cache` (the chunk's positions and
/// vectors also go to `sink`), counting them in `stats`. Says whether
/// the cache kept every one: a cache that fails is said in a warning.
fn embed_into(
    plan: &SyncPlan,
    cache: Option<&EmbeddingCache>,
    texts: &[&str],
    stats: &mut SyncStats,
    mut sink: impl FnMut(&[usize], Vec<Vec<f32>>),
) -> Result<bool> {
    if texts.is_empty() {
        return Ok(true);
    }
    let fingerprint = plan.availability.fingerprint();
    let total = texts.len();
    let mut cache_failed = None;
    let mut keep = |chunk: &[usize], vectors: Vec<Vec<f32>>| {
        if let (Some(cache), None) = (cache, &cache_failed) {
            let chunk_texts: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            cache_failed = cache.put(&fingerprint, &chunk_texts, &vectors).err();
            cache.let_go_of_read_pages();
        }
        sink(chunk, vectors);
    };
    (plan.progress)(0, total);
    embed_all(
        plan.availability,
        texts,
        &|done| (plan.progress)(done, total),
        &mut keep,
    )?;
    stats.items_embedded += total;
    if let Some(e) = &cache_failed {
        stats
            .warnings
            .push(format!("the embedding cache: {e}; vectors not kept"));
    }
    Ok(cache.is_some() && cache_failed.is_none())
}

/// Clears the verdicts a person released in this clone: those items, and
/// the title, go to agents after all.
fn release(rel: &str, file: &mut ParsedFile, released: &Released) {
    for item in &mut file.items {
        if item.withheld.is_some() && released.contains(&item.id) {
            item.withheld = None;
        }
    }
    let title = file.front_matter.title.as_deref().unwrap_or_default();
    if file.withheld_title.is_some() && released.contains(&title_id(rel, title)) {
        file.withheld_title = None;
    }
}

/// Whether an index needs vectors for items stored without one.
fn needs_backfill(header: &Header, availability: &Availability) -> bool {
    header.missing_vectors
        || (header.fingerprint != availability.fingerprint() && header.n_docs > 0)
}

/// Items written in one transaction of a sync, about: a rebuild's memory
/// (LMDB keeps a transaction's pages until it commits) stays that of a
/// few thousand items, however many the index holds.
const BATCH_ITEMS: usize = 4096;

/// The files one transaction of a sync writes.
struct Batch {
    changes: Vec<FileChange>,
    first: bool,
    last: bool,
    /// The stamp of the verdicts' inputs the last batch records.
    trust: Option<Stamp>,
}

/// `changes` cut into runs of about `size` items, in order; at least one
/// run, empty when nothing changed (a rebuild of nothing, or a backfill).
fn in_batches(changes: Vec<FileChange>, size: usize) -> Vec<Vec<FileChange>> {
    let mut batches = vec![Vec::new()];
    let mut items = 0;
    for change in changes {
        if items >= size {
            batches.push(Vec::new());
            items = 0;
        }
        items += change.items.len().max(1);
        batches.last_mut().expect("one batch at least").push(change);
    }
    batches
}

/// Whether `change` still differs from its file's record (another process
/// may have synced it since it was read).
fn still_changed(change: &FileChange, records: &HashMap<String, FileRecord>) -> bool {
    let record = records.get(&change.rel);
    match (&change.source, record) {
        (Some(s), Some(r)) => r.size != s.size || r.mtime_ns != s.mtime_ns,
        (Some(_), None) => true,
        (None, record) => record.is_some(),
    }
}

/// Where a sync's batches find the vectors embedded before the write lock
/// was taken.
enum Ahead {
    /// Nothing was embedded ahead: no model.
    Nothing,
    /// Vectors of the built-in encoder for the learned check alone, by
    /// text: never stored (a hook's sync, `judge_now`).
    ToJudge(HashMap<String, Vec<f32>>),
    /// More than [`Embedding::AtMost`] items to embed: none is embedded now.
    Deferred,
    /// In the embedding cache.
    InCache,
    /// In memory, by item text (no embedding cache).
    Kept(HashMap<String, Vec<f32>>),
}

/// The vectors of `texts`, in order: from `ahead` where it has them, the
/// rest embedded now (a file that changed again since it was read); `None`
/// without a model.
fn vectors_for(
    plan: &SyncPlan,
    ahead: &Ahead,
    texts: &[&str],
    stats: &mut SyncStats,
) -> Result<Option<Vec<Vec<f32>>>> {
    let by_text = match ahead {
        Ahead::Nothing | Ahead::Deferred | Ahead::ToJudge(_) => return embed(plan, texts, stats),
        Ahead::InCache => {
            // Read back from the cache: counted when they were embedded.
            let mut now = SyncStats::default();
            let vectors = embed(plan, texts, &mut now)?;
            stats.items_embedded += now.items_embedded;
            stats.warnings.append(&mut now.warnings);
            return Ok(vectors);
        }
        Ahead::Kept(by_text) => by_text,
    };
    let rest: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|text| !by_text.contains_key(*text))
        .collect();
    let more = match embed(plan, &rest, stats)? {
        Some(more) => more,
        None if rest.is_empty() => Vec::new(),
        None => return Ok(None),
    };
    if more.len() != rest.len() {
        return Err(thehook_embed::Error::vector_count(rest.len(), more.len()).into());
    }
    let mut more = more.into_iter();
    Ok(Some(
        texts
            .iter()
            .map(|text| match by_text.get(*text) {
                Some(vector) => vector.clone(),
                None => more
                    .next()
                    .expect("one vector for each of the rest, counted above"),
            })
            .collect(),
    ))
}
