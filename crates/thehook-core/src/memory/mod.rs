//! A project's memory, indexed and searched. The markdown it is built from
//! is [`crate::store`]'s (a floor below), what the repository says about
//! its items [`crate::policy`]'s, and a text's terms and dates
//! [`crate::text::analysis`]'s. Here, by concern:
//! - [`index`]: LMDB with the vectors (`crate::model` finds the model that
//!   makes them) and the BM25 postings, kept in step with the markdown;
//! - [`session`] records, and [`session_lookup`], the hooks' questions
//!   about them;
//! - [`rank`]: query vectors, and fusion with recency, dates and use;
//! - [`withheld`]: what the safety rules withhold, for review.
//!
//! [`Memory`] is that memory opened once, then recalled from, added to and
//! removed from; [`shared`] keeps one open per project for long-lived
//! processes (the MCP server, the Node addon).

pub(crate) mod files;
pub(crate) mod index;
pub mod rank;
mod requests;
pub mod session;
pub(crate) mod session_lookup;
pub mod shared;
mod syncing;
pub mod withheld;

use crate::config::{Config, LoadedConfig};
use crate::error::{fix, Error, Fix, IoContext, ItemMiss, Result, Step};
use crate::memory::index::{Index, SyncStats};
use crate::memory::rank::fusion::{fuse, reweigh, Hit, Mode};
use crate::memory::rank::query_model::QueryModel;
use crate::memory::rank::tally::TallyFile;
use crate::model::{locate, Availability, SearchPaths};
use crate::policy::renames::Renames;
use crate::policy::stale::Staleness;
use crate::project::Project;
use crate::store::item::Item;
use crate::text::analysis::lexical::Analyzer;
pub use index::{Embedding, Focus};
pub use requests::{ItemRef, RecallOptions, RecallRequest, RememberRequest, RewriteRequest};
pub use syncing::{
    Progress, Refresh, SyncPolicy, EMBED_NOW_LIMIT, HOOK_JUDGE_TEXTS, HOOK_NEW_SESSION_FILES,
    NO_PROGRESS,
};

/// A recall's answer, as MCP and Node give it (the CLI prints the same mode
/// in `recall --json`, and the notices as warnings).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RecallAnswer {
    pub hits: Vec<Hit>,
    /// The mode the search ran in: lexical when the model cannot be used,
    /// whatever was asked.
    pub mode: Mode,
    /// What went wrong but was worked around (the model unusable, the index
    /// rebuilt, a config key ignored), for the caller to show.
    pub notices: Vec<String>,
}

/// One project's memory, open.
pub struct Memory {
    project: Project,
    config: Config,
    config_warnings: Vec<String>,
    availability: Availability,
    index: Index,
    /// Why the index was rebuilt when it was opened, if it was.
    rebuilt: Option<String>,
    query_model: QueryModel,
    analyzer: Analyzer,
    notices: Vec<String>,
    /// How the syncs after this process's own writes embed: an answer's
    /// budget once one was given ([`Memory::sync`]).
    own_embedding: Embedding,
}

impl Memory {
    /// Opens `project`'s memory. Fails with [`Error::NoMemory`] when there
    /// is no `.thehook/` yet and `create` is false. Bring it up to date with
    /// [`Memory::sync`].
    pub fn open(project: &Project, paths: &SearchPaths, create: bool) -> Result<Memory> {
        let project = project.clone();
        if !project.check_layout()? {
            if !create {
                return Err(Error::no_memory(project.root()));
            }
            create_layout(&project)?;
        }
        let LoadedConfig { config, warnings } = Config::load(&project.config_path())?;
        let availability = locate(&config, paths);
        let (index, rebuilt) = Index::open(&project, &availability.fingerprint())?;
        let mut notices = warnings.clone();
        if let Some(why) = &rebuilt {
            notices.push(format!("rebuilding the index from markdown: {why}"));
        }
        Ok(Memory {
            project,
            config,
            config_warnings: warnings,
            availability,
            index,
            rebuilt,
            query_model: QueryModel::default(),
            own_embedding: Embedding::All,
            analyzer: Analyzer::default(),
            notices,
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }
    pub fn config(&self) -> &Config {
        &self.config
    }
    pub fn availability(&self) -> &Availability {
        &self.availability
    }

    pub(crate) fn index(&self) -> &Index {
        &self.index
    }
    pub(crate) fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The index built again from the markdown ([`SyncPolicy::REBUILD`]),
    /// timed, as every front end reports it.
    pub fn reindex_reported(&mut self, progress: Progress) -> Result<Reindexed> {
        let started = std::time::Instant::now();
        let stats = self.sync(SyncPolicy::REBUILD, progress)?;
        Ok(Reindexed {
            items: stats.items_added,
            files: stats.files_changed,
            removed: stats.items_removed,
            embedded: stats.items_embedded,
            cached: stats.items_cached,
            seconds: started.elapsed().as_secs_f64(),
            embeddings: match &self.availability {
                Availability::Ready { model, .. } => model.clone(),
                Availability::Missing { reason, .. } => format!("none, lexical-only ({reason})"),
            },
            warnings: stats.warnings,
        })
    }

    /// Brings the index up to date with the markdown, as `policy` says.
    ///
    /// A model that is present but cannot be used (a broken ONNX Runtime
    /// library, a damaged model file) does not stop memory from working: the
    /// sync runs again without vectors and a notice says why.
    pub fn sync(&mut self, policy: SyncPolicy, progress: Progress) -> Result<SyncStats> {
        let policy = policy.within(&mut self.own_embedding);
        let trusted = &self.config.trust.authors;
        let plan = policy.plan(&self.availability, progress, trusted);
        let stats = match self.index.sync(&self.project, &plan) {
            Err(Error::Model { problem, fix, .. }) => {
                // The failed sync changed nothing; redo it without vectors
                // (the index keeps the ones it has for when the model works).
                self.fall_back_to_lexical(problem, fix);
                let trusted = &self.config.trust.authors;
                let plan = policy.plan(&self.availability, progress, trusted);
                self.index.sync(&self.project, &plan)
            }
            other => other,
        }?;
        if policy.reports_findings() {
            if stats.embeddings_deferred > 0 {
                self.notices.push(format!(
                    "{} new items are being embedded in the background; until then they are found by their words",
                    stats.embeddings_deferred
                ));
            }
            self.notices.extend(stats.warnings.iter().cloned());
        }
        Ok(stats)
    }

    /// Brings the files an answer `cited` (`path:line` citations) up to
    /// date before it is given, as `policy` syncs: a session file edited in
    /// place moves no folder, so the stamp a hook trusts does not show it.
    /// A stat and a record read each. Says whether any had changed: then
    /// the answer is made again.
    pub fn recheck(&mut self, cited: &[String], policy: SyncPolicy) -> Result<bool> {
        let mut files: Vec<String> = cited
            .iter()
            .map(|c| {
                c.rsplit_once(':')
                    .map_or(c.as_str(), |(path, _)| path)
                    .to_string()
            })
            .collect();
        files.sort();
        files.dedup();
        let changed = self.index.differing(&self.project, &files)?;
        if changed.is_empty() {
            return Ok(false);
        }
        self.sync(policy.only(&changed), NO_PROGRESS)?;
        Ok(true)
    }

    /// Stops using the model for the rest of this process.
    fn fall_back_to_lexical(&mut self, problem: String, fix: Fix) {
        self.notices.push(format!(
            "the embedding model cannot be used, searching lexical-only: {problem} (fix: {fix})"
        ));
        self.availability = Availability::Missing {
            reason: problem,
            fix,
        };
        self.query_model.unload();
    }

    /// Things that went wrong but were worked around (shown on stderr by the CLI).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// Hybrid search over the index (callers [`Memory::sync`] first,
    /// [`SyncPolicy::answer`], to see what changed), the files of the hits
    /// checked before they are given ([`Memory::recheck`]): a session file
    /// edited in place since the sync is read again, and searched again.
    pub fn recall(&mut self, request: &RecallRequest) -> Result<Vec<Hit>> {
        let hits = self.search(request)?;
        let cited: Vec<String> = hits.iter().map(|h| h.citation.clone()).collect();
        let policy = SyncPolicy::answer(Refresh::EveryFile, self.own_embedding);
        match self.recheck(&cited, policy)? {
            true => self.search(request),
            false => Ok(hits),
        }
    }

    /// [`Memory::recall`]'s search, over the index as it is.
    fn search(&mut self, request: &RecallRequest) -> Result<Vec<Hit>> {
        let (query, options) = (request.query.as_str(), request);
        if let (Mode::Vector, Availability::Missing { reason, fix }) =
            (options.mode, &self.availability)
        {
            return Err(Error::Usage {
                problem: format!("vector search needs the embedding model: {reason}"),
                source: None,
                fix: format!("{fix}; or search in mode hybrid or lexical").into(),
            });
        }
        let k = options.k.max(1);
        // Enough candidates that fusion has something to fuse and duplicates
        // can be folded without leaving the list short.
        let limit = (k * 4).max(40);
        // The vector is asked for after the lexical search, which overlaps
        // with a model still loading (see Memory::start_embedding).
        let mut model_failed = None;
        let (model, availability) = (&mut self.query_model, &self.availability);
        let query_vector = || match options.mode {
            Mode::Lexical => Ok(None),
            _ => match model.embed(availability, query) {
                Err(Error::Model { problem, fix, .. }) => {
                    model_failed = Some((problem, fix));
                    Ok(None)
                }
                other => other,
            },
        };
        let candidates =
            self.index
                .candidates_then_vector(query, query_vector, limit, &options.filter)?;
        if let Some((problem, fix)) = model_failed {
            self.fall_back_to_lexical(problem, fix);
        }
        let period = crate::text::analysis::when::period_in(query);
        let mut hits = fuse(
            candidates,
            options.mode,
            options.lexical_weight,
            period,
            k,
            &self.analyzer,
        );
        let staleness = Staleness::load(&self.project);
        for hit in &mut hits {
            hit.stale = staleness.reason(&hit.item);
        }
        reweigh(&mut hits, &TallyFile::load(&self.project));
        Ok(hits)
    }

    /// The mode a search asked in `asked` runs in: lexical when the model
    /// cannot be used.
    pub fn mode_for(&self, asked: Mode) -> Mode {
        match self.availability {
            Availability::Missing { .. } => Mode::Lexical,
            Availability::Ready { .. } => asked,
        }
    }

    /// [`Memory::recall`] as every front end answers it: the hits, the mode
    /// the search really ran in, and what went wrong but was worked around
    /// ([`RecallAnswer::notices`]): so a caller in a long-lived process (MCP,
    /// Node) is told, as the CLI's user is, that its answer is keywords only.
    pub fn recall_answer(&mut self, request: &RecallRequest) -> Result<RecallAnswer> {
        let hits = self.recall(request)?;
        let mut notices = self.take_notices();
        if request.filter.agents_only {
            // Notices quote what arrived by git (a file's name, a config
            // key): to an agent they are text like any other that is not an
            // item, and pass the safety rules line by line.
            for notice in &mut notices {
                *notice = crate::text::safety::guard_lines(notice);
            }
        }
        let mode = self.mode_for(request.mode);
        if let Availability::Missing { reason, .. } = &self.availability {
            // Said once: the fallback's own notice names the same reason.
            let said = notices.iter().any(|n| n.contains(reason.as_str()));
            if mode != request.mode && !said {
                notices.push(format!("searched by keywords only: {reason}"));
            }
        }
        Ok(RecallAnswer {
            hits,
            mode,
            notices,
        })
    }

    /// Every stale item with its reason, symbols checked against the
    /// checkout now (`thehook review`).
    pub fn stale_items(&self) -> Result<Vec<(Item, String)>> {
        let items = self.index.all_items()?;
        let staleness = Staleness::check_symbols(&self.project, &items)?;
        Ok(items
            .into_iter()
            .filter_map(|i| staleness.reason(&i).map(|why| (i, why)))
            .collect())
    }

    /// Knowledge items (not sessions' own) that say nearly what another of
    /// their kind says, in pairs: candidates to forget or rewrite.
    pub fn near_duplicates(&self) -> Result<Vec<(Item, Item)>> {
        let knowledge: Vec<Item> = self
            .index
            .all_items()?
            .into_iter()
            .filter(|i| !i.path.starts_with(crate::project::SESSIONS_PREFIX))
            .collect();
        Ok(rank::fusion::near_duplicates(&knowledge, self.analyzer()))
    }

    /// Re-checks the symbols items cite against the checkout, for the fast
    /// paths (session start, `recall`, `status`) that only read the result.
    pub fn check_stale_symbols(&self) -> Result<()> {
        Staleness::check_symbols(&self.project, &self.index.all_items()?).map(|_| ())
    }

    /// Reads the renames git made since memory's oldest session (only the
    /// commits since the last read; nothing when HEAD has not moved), for
    /// the file hook: how many are known, `None` when git cannot tell.
    pub fn follow_renames(&self) -> Result<Option<usize>> {
        Renames::refresh(&self.project, || {
            let sessions = self.index.sessions()?;
            Ok(sessions
                .into_iter()
                .map(|s| s.date)
                .filter(|d| !d.is_empty())
                .min())
        })
    }

    /// The embedding of `query`, or `None` without a model.
    pub fn embed_query(&mut self, query: &str) -> Result<Option<Vec<f32>>> {
        self.query_model.embed(&self.availability, query)
    }

    /// Starts loading the model and embedding `query` on another thread, so
    /// that a one-shot `recall` syncs the index and searches lexically
    /// meanwhile; [`Memory::recall`] of that query then picks the vector up.
    pub fn start_embedding(&mut self, query: &str) {
        self.query_model.start(&self.availability, query);
    }

    /// Appends a fact to `knowledge/notes.md` and indexes it at once.
    pub fn remember(&mut self, request: &RememberRequest) -> Result<Item> {
        let (text, kind) = (request.text.as_str(), request.kind);
        let today = jiff::Zoned::now().date().to_string();
        // Held until indexed, so concurrent `remember`s neither lose a write
        // nor report each other's item.
        let _lock = self.project.lock()?;
        let text = self.as_written(text);
        crate::store::ensure_merge_attributes(&self.project)?;
        let item = crate::store::append_note(&self.project, kind, &text, &today)?;
        self.index_written(&item.citation());
        Ok(item)
    }

    /// Indexes markdown just written. The markdown is the truth and the
    /// write took effect: an index that cannot follow now (a full disk)
    /// catches up on the next sync, and a notice says so, not an error that
    /// would read as if nothing had been written.
    fn index_written(&mut self, what: &str) {
        if let Err(e) = self.sync(SyncPolicy::FULL, NO_PROGRESS) {
            let why = crate::transcript::first_line(&e.to_string());
            self.notices
                .push(format!("{what} is written but not indexed yet: {why}"));
        }
    }

    /// Removes the item whose id starts with `id_prefix` from its markdown
    /// file and from the index.
    pub fn forget(&mut self, item: &ItemRef) -> Result<Item> {
        let item = match self.find_item(item) {
            // Not an item: perhaps a withheld session title (`review forget`).
            Err(
                missing @ Error::ItemNotFound {
                    miss: ItemMiss::NoMatch { .. },
                    ..
                },
            ) => match self.withheld_title(item)? {
                Some(title) => return self.forget_title(title),
                None => return Err(missing),
            },
            found => found?,
        };
        let _lock = self.project.lock()?;
        crate::store::remove_item(&self.project, &item)?;
        self.index_written(&format!("the removal of {}", item.citation()));
        Ok(item)
    }

    /// Records that a person checked the item and it is true: it is no
    /// longer stale, whatever it cites (`.thehook/confirmed.txt`).
    pub fn confirm(&mut self, item: &ItemRef) -> Result<Item> {
        let item = self.find_item(item)?;
        let _lock = self.project.lock()?;
        crate::policy::stale::CONFIRMED.add(&self.project, &item.id)?;
        Ok(item)
    }

    /// Replaces the item's text in its markdown file (one line, its list
    /// marker and type tag kept) and indexes the result, which has a new id.
    pub fn rewrite(&mut self, request: &RewriteRequest) -> Result<Item> {
        let text = request.text.as_str();
        let item = self.find_item(&request.item)?;
        let text = self.as_written(text);
        let _lock = self.project.lock()?;
        let rewritten = crate::store::replace_item(&self.project, &item, Some(&text))?;
        self.index_written(&format!("the rewrite of {}", item.citation()));
        rewritten.ok_or_else(|| Error::ItemNotFound {
            miss: ItemMiss::NotAfterRewrite {
                citation: item.citation(),
            },
            fix: fix!(Step::Recall, " to find it"),
        })
    }

    /// `text` as a person's fact is written under `.thehook/`: memory is
    /// committed to git, so a secret pasted into it (by a person, or an
    /// agent through MCP) is redacted like a transcript's, and nothing
    /// hidden is written.
    fn as_written(&self, text: &str) -> String {
        let text = match self.config().capture.redact_secrets {
            true => crate::text::redact::redact(text),
            false => std::borrow::Cow::Borrowed(text),
        };
        crate::text::safety::strip_hidden(&text).into_owned()
    }

    /// The one item whose id starts with `item`'s prefix.
    fn find_item(&mut self, item: &ItemRef) -> Result<Item> {
        let prefix = item.as_str();
        self.sync(SyncPolicy::FULL, NO_PROGRESS)?;
        let matches = self.index.items_by_id_prefix(prefix, 10)?;
        let item = match matches.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(Error::ItemNotFound {
                    miss: ItemMiss::NoMatch {
                        prefix: prefix.to_string(),
                    },
                    fix: fix!(Step::Recall, " to see its id"),
                })
            }
            many => {
                return Err(Error::ItemNotFound {
                    miss: ItemMiss::Ambiguous {
                        prefix: prefix.to_string(),
                        candidates: many.iter().map(|i| (i.id.clone(), i.citation())).collect(),
                    },
                    fix: "give more characters of the id".into(),
                });
            }
        };
        Ok(item)
    }

    /// Why the index was rebuilt when it was opened, if it was.
    pub(crate) fn rebuilt(&self) -> Option<&str> {
        self.rebuilt.as_deref()
    }

    /// What was wrong in the config files (their defaults were used).
    pub(crate) fn config_warnings(&self) -> &[String] {
        &self.config_warnings
    }
}

/// What a rebuild of the index did: the CLI's `reindex --json` and Node's
/// `reindex()` both report this.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Reindexed {
    /// Items indexed.
    pub items: usize,
    /// Markdown files read.
    pub files: usize,
    /// Items the index held that the markdown no longer has.
    pub removed: usize,
    /// Items embedded by the model.
    pub embedded: usize,
    /// Items whose vector came from the embedding cache.
    pub cached: usize,
    pub seconds: f64,
    /// The embedding model, or `none, lexical-only (<why>)`.
    pub embeddings: String,
    /// Findings about the markdown (bad front matter, non-UTF-8 bytes...).
    pub warnings: Vec<String>,
}

/// The folders a project's memory needs, and the `.gitignore` that keeps the
/// machine-local ones out of git.
pub fn create_layout(project: &Project) -> Result<()> {
    for dir in [project.sessions_dir(), project.knowledge_dir()] {
        std::fs::create_dir_all(&dir).at("cannot create folder", dir)?;
    }
    let gitignore = project.dir().join(".gitignore");
    if !gitignore.exists() {
        crate::store::write_atomic(&gitignore, b"failed/\nqueue/\nindex/\nlogs/\n")?;
    }
    crate::store::ensure_merge_attributes(project)
}
