//! A quick-loading copy of a WordPiece tokenizer, kept in the user cache.
//!
//! `tokenizer.json` took 64 million instructions to load (callgrind): the
//! `tokenizers` crate reads its model through serde's buffered untagged
//! content, vocabulary included. A session start without stored token
//! counts waits for it. The copy holds the same tokenizer in three lines
//! and more: the vocabulary's size (a copy cut short is not read); the
//! pipeline (normaliser, pre-tokeniser, special tokens, the model's
//! settings) as JSON with the model's vocabulary left out but for the
//! special tokens; then the vocabulary, one token a line in id order, read
//! without serde into the map `WordPiece`'s builder takes (28 million
//! instructions in all). The tokenizer is the `tokenizers` crate's own;
//! only the vocabulary's route differs.
//!
//! Keyed by the original's path, size and modification time, so an edited
//! or replaced `tokenizer.json` gets a new copy. Written under a temporary
//! name and renamed into place, as the optimised model is.

use std::io::Write;
use std::path::{Path, PathBuf};

use tokenizers::models::wordpiece::WordPiece;
use tokenizers::{Model, ModelWrapper, Tokenizer};

/// Changes when the copy's layout does, so an older copy is not read.
const FORMAT: u32 = 2;

/// The tokenizer from its copy at `copy` ([`path_for`]), if there is one.
pub(crate) fn load(copy: &Path) -> Option<Tokenizer> {
    let bytes = std::fs::read(copy).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let (count, rest) = text.split_once('\n')?;
    let (pipeline, vocab) = rest.split_once('\n')?;
    let mut tokenizer: Tokenizer = serde_json::from_str(pipeline).ok()?;
    let ModelWrapper::WordPiece(settings) = tokenizer.get_model() else {
        return None;
    };
    // `WordPiece::read_bytes` makes a string of each line twice and grows
    // the map as it goes: half the load, against a tenth here.
    let vocab = vocab.strip_suffix('\n')?;
    let lines = vocab.bytes().filter(|b| *b == b'\n').count() + 1;
    // A copy cut short (a disk that filled, a hand edit) would tokenize
    // with tokens missing: not read.
    if count.parse::<usize>().ok()? != lines {
        return None;
    }
    let mut by_token = ahash::AHashMap::with_capacity(lines);
    for (id, token) in vocab.split('\n').enumerate() {
        by_token.insert(token.to_string(), u32::try_from(id).ok()?);
    }
    let model = like(settings, by_token)?;
    tokenizer.with_model(model);
    Some(tokenizer)
}

/// Keeps a copy of `tokenizer` at `copy` ([`path_for`] its original). Nothing
/// is kept for a model other than WordPiece, or a vocabulary one token a
/// line cannot hold (ids with gaps, a token with a line break): that
/// tokenizer loads from the original every time.
pub(crate) fn keep(tokenizer: &Tokenizer, copy: &Path) -> Option<()> {
    if copy.is_file() {
        return Some(());
    }
    let ModelWrapper::WordPiece(model) = tokenizer.get_model() else {
        return None;
    };
    let mut by_id: Vec<(u32, String)> =
        model.get_vocab().into_iter().map(|(t, i)| (i, t)).collect();
    by_id.sort_unstable();
    let one_a_line = by_id
        .iter()
        .enumerate()
        .all(|(n, (id, token))| *id as usize == n && !token.contains('\n'));
    if !one_a_line {
        return None;
    }
    // The model's settings, and of its vocabulary the added (special)
    // tokens: reading the pipeline gives each added token the model's id
    // for it, or a new one if the model has none.
    let added: ahash::AHashMap<String, u32> = tokenizer
        .get_added_tokens_decoder()
        .into_iter()
        .map(|(id, token)| (token.content, id))
        .collect();
    let settings = like(model, added)?;
    let mut pipeline = tokenizer.clone();
    pipeline.with_model(settings);
    // The vocabulary's size, then the pipeline (compact JSON escapes line
    // breaks: one line), then the vocabulary.
    let pipeline = serde_json::to_string(&pipeline).ok()?;
    let dir = copy.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    let mut partial = tempfile::Builder::new()
        .prefix(".making-")
        .tempfile_in(dir)
        .ok()?;
    let mut out = std::io::BufWriter::new(partial.as_file_mut());
    writeln!(out, "{}\n{pipeline}", by_id.len()).ok()?;
    for (_, token) in &by_id {
        writeln!(out, "{token}").ok()?;
    }
    out.flush().ok()?;
    drop(out);
    partial.persist(copy).ok()?;
    Some(())
}

/// A WordPiece model with `model`'s settings and `vocab`.
fn like(model: &WordPiece, vocab: ahash::AHashMap<String, u32>) -> Option<WordPiece> {
    WordPiece::builder()
        .vocab(vocab)
        .unk_token(model.unk_token.clone())
        .continuing_subword_prefix(model.continuing_subword_prefix.clone())
        .max_input_chars_per_word(model.max_input_chars_per_word)
        .build()
        .ok()
}

/// `<cache>/tokenizers/<hash of FORMAT, the original's path, size, mtime>.txt`.
pub(crate) fn path_for(original: &Path, cache: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(original).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    let key = format!(
        "{FORMAT}\0{}\0{}\0{modified}",
        original.to_string_lossy(),
        meta.len()
    );
    let hex = crate::hash::sha256_hex(key.as_bytes());
    Some(cache.join("tokenizers").join(format!("{}.txt", &hex[..16])))
}

#[cfg(all(test, feature = "model"))]
mod tests {
    use super::*;

    /// The model's tokenizer, loaded from the original, and where its copy
    /// goes in an empty cache folder (kept alive by the `TempDir`).
    fn original_and_copy() -> (Tokenizer, PathBuf, tempfile::TempDir) {
        let original = crate::tests::repo_files().dir.join("tokenizer.json");
        let cache = tempfile::tempdir().unwrap();
        let at = path_for(&original, cache.path()).unwrap();
        (Tokenizer::from_file(&original).unwrap(), at, cache)
    }

    /// The copy counts and splits every text as the original does.
    #[test]
    fn the_copy_tokenizes_as_the_original() {
        let (full, at, _cache) = original_and_copy();
        assert!(load(&at).is_none(), "no copy yet");
        keep(&full, &at).expect("a WordPiece vocabulary is kept");
        let copy = load(&at).expect("the copy loads");
        let texts = [
            "Releases are tagged with the kkp scheme",
            "naïve café — résumé: 東京 and ünïcödé, tabs\tand\r\nbreaks",
            "[CLS] special [SEP] tokens [MASK] in text [UNK] [PAD]",
            "snake_case_identifiers, CamelCaseNames and src/auth/session.rs:42",
            "a supercalifragilisticexpialidociouslylongwordthatgoesonforeverandeverandevermorethanahundredcharactersinonegoaaaaaaaaaaaaaaaa",
            "emoji 🦀🚀 and ∑ math ≤ ≥ symbols",
        ];
        for text in texts {
            for special in [false, true] {
                let a = full.encode(text, special).unwrap();
                let b = copy.encode(text, special).unwrap();
                assert_eq!(a.get_ids(), b.get_ids(), "{text:?}");
                assert_eq!(a.get_offsets(), b.get_offsets(), "{text:?}");
            }
        }
        assert_eq!(full.get_vocab(true), copy.get_vocab(true));
    }

    /// A copy cut short is not read: the original loads instead.
    #[test]
    fn a_copy_cut_short_is_not_read() {
        let (full, copy, _cache) = original_and_copy();
        keep(&full, &copy).unwrap();
        let text = std::fs::read_to_string(&copy).unwrap();
        let cut = &text[..text.len() - 1000];
        std::fs::write(&copy, &cut[..=cut.rfind('\n').unwrap()]).unwrap();
        assert!(load(&copy).is_none());
        std::fs::write(&copy, "not a copy").unwrap();
        assert!(load(&copy).is_none());
        std::fs::write(&copy, &text).unwrap();
        assert!(load(&copy).is_some());
    }

    /// A changed original is not answered from the old copy.
    #[test]
    fn an_edited_original_has_no_copy_until_kept_again() {
        let dir = tempfile::tempdir().unwrap();
        let original = dir.path().join("tokenizer.json");
        std::fs::copy(
            crate::tests::repo_files().dir.join("tokenizer.json"),
            &original,
        )
        .unwrap();
        let cache = dir.path().join("cache");
        let full = Tokenizer::from_file(&original).unwrap();
        keep(&full, &path_for(&original, &cache).unwrap()).unwrap();
        assert!(load(&path_for(&original, &cache).unwrap()).is_some());
        let text = std::fs::read_to_string(&original).unwrap();
        let edited = text.replacen("\"lowercase\":true", "\"lowercase\":false", 1);
        assert_ne!(edited, text);
        std::fs::write(&original, edited).unwrap();
        assert!(
            load(&path_for(&original, &cache).unwrap()).is_none(),
            "the edit is seen"
        );
    }
}
