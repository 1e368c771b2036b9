//! Token counts of the block's lines without paying for the tokenizer on
//! the hot path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokenizers::Tokenizer;

use crate::inject::cache::SideFile;
use crate::model::Availability;
use crate::project::Project;

/// Counts tokens with the model's tokenizer. Loading it costs about 28
/// million instructions even from its quick-loading copy (`thehook_embed`'s
/// `tokenizer_copy`), so the foreground avoids it: a WordPiece token covers
/// at least one character, so no text has more tokens than non-space
/// characters, and the
/// background half of the last session start stored exact counts of the
/// lines it expected ([`TokenCounts`]). The tokenizer is loaded only when
/// neither settles whether the block fits. Without a model, an estimate.
pub(crate) struct TokenCounter {
    counting: Counting,
    known: TokenCounts,
}

enum Counting {
    /// Stored counts where known, else the character bound: everything fits
    /// even so, or every text is known.
    Bound,
    Exact(Arc<Tokenizer>),
    /// No tokenizer: English WordPiece averages about 4 characters a token;
    /// 3 leaves room.
    Estimate,
}

/// The upper bound on the tokens of `text`.
fn token_bound(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

impl TokenCounter {
    /// A counter for `texts`: the most that will be counted against `budget`.
    /// `stored` is read only when the character bound alone does not fit.
    pub(crate) fn new<'t>(
        availability: &Availability,
        budget: usize,
        texts: impl Iterator<Item = &'t str> + Clone,
        stored: impl FnOnce() -> TokenCounts,
    ) -> TokenCounter {
        if texts.clone().map(token_bound).sum::<usize>() <= budget {
            return TokenCounter {
                counting: Counting::Bound,
                known: TokenCounts::default(),
            };
        }
        let known = stored();
        let (mut bound, mut all_known) = (0, true);
        for text in texts {
            match known.get(text) {
                Some(n) => bound += n,
                None => {
                    bound += token_bound(text);
                    all_known = false;
                }
            }
        }
        let counting = match bound <= budget || all_known {
            true => Counting::Bound,
            false => load_tokenizer(availability).map_or(Counting::Estimate, Counting::Exact),
        };
        TokenCounter { counting, known }
    }

    pub(crate) fn count(&self, text: &str) -> usize {
        match &self.counting {
            Counting::Bound => self.known.get(text).unwrap_or_else(|| token_bound(text)),
            Counting::Exact(t) => t
                .encode(text, false)
                .map_or_else(|_| token_bound(text), |e| e.len()),
            Counting::Estimate => text.len().div_ceil(3),
        }
    }
}

/// Exact token counts of lines a session start is likely to inject, keyed by
/// a hash of the line, stored by the background half ([`COUNTS`]).
#[derive(Debug, Default)]
pub(crate) struct TokenCounts {
    fingerprint: String,
    counts: HashMap<String, usize>,
}

/// The counts, kept for the fingerprint of the model whose tokenizer
/// counted them.
const COUNTS: SideFile<String, HashMap<String, usize>> = SideFile::new("token-counts.json");

impl TokenCounts {
    /// Counts `texts` with `tokenizer`, for the model of `fingerprint`.
    pub(crate) fn measure(
        texts: &[String],
        fingerprint: String,
        tokenizer: &Tokenizer,
    ) -> TokenCounts {
        TokenCounts {
            fingerprint,
            counts: texts
                .iter()
                .filter_map(|t| {
                    Some((
                        TokenCounts::key(t),
                        tokenizer.encode(t.as_str(), false).ok()?.len(),
                    ))
                })
                .collect(),
        }
    }

    /// Stores the counts for the next session start's foreground.
    pub(crate) fn store(&self, project: &Project) -> crate::error::Result<()> {
        COUNTS.write(project, &self.fingerprint, &self.counts)
    }

    /// With no stored counts (a fresh clone's first session start, or any
    /// before a background half stored them; the character bound rarely
    /// settles their block), starts loading the tokenizer on another thread: it
    /// loads while the caller syncs and ranks, and [`load_tokenizer`] takes
    /// it from there. At 10,000 items, a start without stored counts that did
    /// not preload took 1.08x the wall time of one that did, at 0.94x the CPU
    /// (paired whole-process timings, 40 pairs).
    pub(crate) fn preload_if_none(project: &Project, availability: &Availability) {
        let Some((path, cache)) = tokenizer_files(availability) else {
            return;
        };
        if COUNTS.exists(project) || kept(&path).is_some() {
            return;
        }
        let at = path.clone();
        let loading = std::thread::spawn(move || load(&at, cache.as_deref()));
        *PRELOADING.lock().unwrap_or_else(|p| p.into_inner()) = Some((path, loading));
    }

    /// The stored counts, if they came from this model's tokenizer.
    pub(crate) fn load(project: &Project, availability: &Availability) -> TokenCounts {
        let fingerprint = availability.fingerprint();
        match COUNTS.read(project, &fingerprint) {
            Some(counts) => TokenCounts {
                fingerprint,
                counts,
            },
            None => TokenCounts::default(),
        }
    }

    fn key(text: &str) -> String {
        crate::hash::sha256_hex(text.as_bytes())[..16].to_string()
    }

    pub(crate) fn get(&self, text: &str) -> Option<usize> {
        self.counts.get(&Self::key(text)).copied()
    }
}

/// The model's tokenizer (`tokenizer.json` in its folder) with padding and
/// truncation off, so counts are real: the one this process loaded already,
/// or the one [`TokenCounts::preload_if_none`] started loading, or loaded
/// now. It is kept for the life of the process: freeing its vocabulary cost
/// a session start 13.5 million instructions (3 ms), and the Node addon
/// loads it once.
pub(crate) fn load_tokenizer(availability: &Availability) -> Option<Arc<Tokenizer>> {
    let (path, cache) = tokenizer_files(availability)?;
    if let Some(tokenizer) = kept(&path) {
        return Some(tokenizer);
    }
    let preloading = PRELOADING.lock().unwrap_or_else(|p| p.into_inner()).take();
    let preloaded = match preloading {
        Some((at, loading)) if at == path => loading.join().ok().flatten(),
        _ => None,
    };
    let tokenizer = Arc::new(preloaded.or_else(|| load(&path, cache.as_deref()))?);
    let stamp = stamp(&path);
    *KEPT.lock().unwrap_or_else(|p| p.into_inner()) = Some((path, stamp, tokenizer.clone()));
    Some(tokenizer)
}

/// What tells a file changed: its size and modification time.
fn stamp(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// The tokenizer's file and the cache folder its quick-loading copy is
/// kept in, when there is a model.
fn tokenizer_files(availability: &Availability) -> Option<(PathBuf, Option<PathBuf>)> {
    match availability {
        Availability::Ready {
            model_dir,
            optimized_cache,
            ..
        } => Some((
            model_dir.path.join("tokenizer.json"),
            optimized_cache.clone(),
        )),
        Availability::Missing { .. } => None,
    }
}

fn load(path: &Path, cache: Option<&Path>) -> Option<Tokenizer> {
    crate::model::tokenizer(path, None, cache).ok()
}

/// The tokenizer this process loaded from `path`, if it did and the file
/// has not changed since (a long-lived process, the Node addon, outlives a
/// model update).
fn kept(path: &Path) -> Option<Arc<Tokenizer>> {
    let kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    kept.as_ref()
        .filter(|(at, then, _)| at == path && then.is_some() && *then == stamp(path))
        .map(|(_, _, tokenizer)| tokenizer.clone())
}

/// A tokenizer being loaded on another thread, and from where.
type Preloading = Option<(PathBuf, std::thread::JoinHandle<Option<Tokenizer>>)>;
static PRELOADING: Mutex<Preloading> = Mutex::new(None);
/// The tokenizer loaded, from where, and that file's [`stamp`] then.
type Kept = Option<(
    PathBuf,
    Option<(u64, std::time::SystemTime)>,
    Arc<Tokenizer>,
)>;
static KEPT: Mutex<Kept> = Mutex::new(None);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Located;

    /// A long-lived process (the Node addon) counts with the tokenizer the
    /// model folder holds now, not the one it loaded before an update.
    #[test]
    #[cfg_attr(
        not(feature = "model"),
        ignore = "needs the embedding model: scripts/test.sh"
    )]
    fn a_tokenizer_file_that_changed_is_loaded_again() {
        let dir = tempfile::tempdir().unwrap();
        let original =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets/model/tokenizer.json");
        let file = dir.path().join("tokenizer.json");
        std::fs::copy(&original, &file).unwrap();
        let ready = Availability::Ready {
            model: "all-minilm-l6-v2".into(),
            model_dir: Located {
                path: dir.path().to_path_buf(),
                source: "test".into(),
            },
            runtime: None,
            fingerprint: "test".into(),
            optimized_cache: Some(dir.path().join("cache")),
            embedding_cache: None,
        };
        let ids = |t: &Tokenizer| t.encode("COUNT", false).unwrap().get_ids().to_vec();
        let lowercased = ids(&load_tokenizer(&ready).unwrap());
        let text = std::fs::read_to_string(&file).unwrap();
        let edited = text.replacen("\"lowercase\":true", "\"lowercase\":false", 1);
        assert_ne!(edited, text);
        std::fs::write(&file, edited).unwrap();
        let as_written = ids(&load_tokenizer(&ready).unwrap());
        assert_ne!(lowercased, as_written, "the edited file is read");
    }
}
