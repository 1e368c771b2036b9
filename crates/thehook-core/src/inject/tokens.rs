//! Token counts of the block's lines without paying for the tokenizer on
//! the hot path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::inject::cache::SideFile;
use crate::model::Availability;
use crate::project::Project;

/// Counts tokens with the model's tokenizer. Loading it costs about 17 ms
/// (docs/benchmarks.md's session-start rows), so the foreground avoids it: a WordPiece token covers at least one
/// character, so no text has more tokens than non-space characters, and the
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
    Exact(Box<tokenizers::Tokenizer>),
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
        let counting = match availability {
            _ if bound <= budget || all_known => Counting::Bound,
            Availability::Ready { model_dir, .. } => {
                load_tokenizer(&model_dir.path.join("tokenizer.json"))
                    .map_or(Counting::Estimate, |t| Counting::Exact(Box::new(t)))
            }
            Availability::Missing { .. } => Counting::Estimate,
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
        tokenizer: &tokenizers::Tokenizer,
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
    /// parses (about 17 ms) while the caller syncs and ranks, and
    /// [`load_tokenizer`] takes it from there. At 10,000 items, a start
    /// without stored counts that did not preload took 1.08x the wall
    /// time of one that did, at 0.94x the CPU (paired whole-process timings, 40 pairs).
    pub(crate) fn preload_if_none(project: &Project, availability: &Availability) {
        let Availability::Ready { model_dir, .. } = availability else {
            return;
        };
        if COUNTS.exists(project) {
            return;
        }
        let path = model_dir.path.join("tokenizer.json");
        let at = path.clone();
        let loading = std::thread::spawn(move || crate::model::tokenizer(&at, None).ok());
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

/// The model's tokenizer with padding and truncation off, so counts are real:
/// the one [`TokenCounts::preload_if_none`] started loading, if it did.
pub(crate) fn load_tokenizer(path: &Path) -> Option<tokenizers::Tokenizer> {
    let preloading = PRELOADING.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some((at, loading)) = preloading {
        if at == path {
            if let Ok(tokenizer) = loading.join() {
                return tokenizer;
            }
        }
    }
    crate::model::tokenizer(path, None).ok()
}

/// A tokenizer being loaded on another thread, and from where.
type Preloading = Option<(
    PathBuf,
    std::thread::JoinHandle<Option<tokenizers::Tokenizer>>,
)>;
static PRELOADING: std::sync::Mutex<Preloading> = std::sync::Mutex::new(None);
