//! Embeddings kept once per machine: a second clone or worktree of a
//! repository, or a reindex after a branch switch, embeds nothing the model
//! already embedded here. One LMDB environment under the user cache
//! (`<cache>/embeddings/`): the SHA-256 of the model's fingerprint and the
//! item's text leads to the number the vector was written under, so another
//! model never reads these vectors. Vectors are stored in the order they
//! were written, so LMDB fills their pages (keyed by the hash itself, two
//! vectors of 1.5 KB shared a 4 KB page half the time: 200 MB for a team's
//! year instead of 100), and the oldest are the first in the file.
//!
//! LMDB lets many processes read and write it at once (one writer at a
//! time, readers never blocked). At most [`MAX_VECTORS`] are kept: past
//! that, the oldest written leave first. The cache is an optimisation only:
//! a caller that cannot open, read or write it embeds as if it were empty.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use heed::types::Bytes;
use heed::{CommitOrAbort, Env, EnvOpenOptions, WithoutTls};
use sha2::{Digest, Sha256};

use crate::error::{Error, IoContext, Result};

/// The folder under the user cache.
pub const CACHE_FOLDER: &str = "embeddings";

/// Vectors kept: a 384-float vector takes about 2 KB of the file, so this
/// is about 512 MB, the embeddings of five team-years of memory. When it is
/// full, a sixteenth more than needed leave at once, so that a reindex does
/// not evict on every write.
pub const MAX_VECTORS: u64 = 262_144;

/// Address space for the map (not disk: the file grows as it is written).
const MAP_SIZE: usize = 2 << 30;

/// An open cache (cheap to clone: the environment is shared).
#[derive(Clone)]
pub struct EmbeddingCache {
    env: Env<WithoutTls>,
    /// The hash of (model, text) → the big-endian number it was written under.
    by_text: heed::Database<'static, Bytes, Bytes>,
    /// Big-endian write number → the hash, then the vector as little-endian
    /// `f32`s: the oldest first, for eviction.
    vectors: heed::Database<'static, Bytes, Bytes>,
}

/// What `doctor` says of the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSize {
    pub vectors: u64,
    /// The file on disk.
    pub bytes: u64,
}

impl EmbeddingCache {
    /// Opens (creating) the cache in `dir`. LMDB must open one file once
    /// per process, so each folder's cache is opened, and its databases
    /// created (a write transaction), once per process and then shared.
    pub fn open(dir: &Path) -> Result<EmbeddingCache> {
        static OPEN: std::sync::OnceLock<std::sync::Mutex<HashMap<PathBuf, EmbeddingCache>>> =
            std::sync::OnceLock::new();
        let mut open = OPEN
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(cache) = open.get(dir) {
            return Ok(cache.clone());
        }
        std::fs::create_dir_all(dir).at("cannot create the embedding cache", dir)?;
        let mut options = EnvOpenOptions::new().read_txn_without_tls();
        options.map_size(MAP_SIZE).max_dbs(2);
        // SAFETY: heed asks that nothing but LMDB modify the mapped files while
        // they are open, and that they not live on a network file system.
        // Only LMDB writes this cache's files (thehook never deletes or
        // writes them itself), in the user's cache folder; a cache folder on
        // a network file system is not supported (docs/search.md).
        let env = unsafe { options.open(dir) }.map_err(|e| failed(dir, e))?;
        let wtxn = env.write_txn().map_err(|e| failed(dir, e))?;
        let (by_text, vectors) = env
            .create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit((
                    dbo.create_database(wtxn, Some("by_text"))?,
                    dbo.create_database(wtxn, Some("vectors"))?,
                )))
            })
            .map_err(|e| failed(dir, e))?
            .commit()
            .expect("committed");
        let cache = EmbeddingCache {
            env,
            by_text,
            vectors,
        };
        open.insert(dir.to_path_buf(), cache.clone());
        Ok(cache)
    }

    /// The cached vector of each text (`None` where there is none).
    pub fn get(&self, fingerprint: &str, texts: &[&str]) -> Result<Vec<Option<Vec<f32>>>> {
        let rtxn = self.env.read_txn()?;
        let mut out = Vec::with_capacity(texts.len());
        for text in texts {
            let found = match self.by_text.get(&rtxn, &key(fingerprint, text))? {
                Some(number) => self.vectors.get(&rtxn, number)?,
                None => None,
            };
            // A value of another layout is no vector: embedded again.
            let found = found.filter(|bytes| bytes.len() > HASH);
            out.push(found.map(|bytes| {
                bytes[HASH..]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .collect()
            }));
        }
        Ok(out)
    }

    /// Which of `texts` it has no vector for, by their positions (no vector
    /// is read).
    pub fn missing(&self, fingerprint: &str, texts: &[&str]) -> Result<Vec<usize>> {
        let rtxn = self.env.read_txn()?;
        let mut out = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            if self.by_text.get(&rtxn, &key(fingerprint, text))?.is_none() {
                out.push(i);
            }
        }
        Ok(out)
    }

    /// Lets go of the cache file's pages read so far
    /// ([`crate::mapped_pages`]): a sync reads thousands of vectors
    /// once each.
    pub fn let_go_of_read_pages(&self) {
        crate::mapped_pages::let_go(self.env.path());
    }

    /// Keeps the vector of each text, in one transaction, then evicts the
    /// oldest if the cache holds more than [`MAX_VECTORS`].
    /// A full disk is said as such, naming the cache's folder.
    pub fn put(&self, fingerprint: &str, texts: &[&str], vectors: &[Vec<f32>]) -> Result<()> {
        self.put_within(fingerprint, texts, vectors, MAX_VECTORS)
            .map_err(|e| e.when_disk_full(self.env.path()))
    }

    fn put_within(
        &self,
        fingerprint: &str,
        texts: &[&str],
        vectors: &[Vec<f32>],
        max: u64,
    ) -> Result<()> {
        let mut wtxn = self.env.write_txn()?;
        let mut next = match self.vectors.last(&wtxn)? {
            Some((last, _)) => number(last).ok_or_else(|| foreign(last))? + 1,
            None => 0,
        };
        for (text, vector) in texts.iter().zip(vectors) {
            let key = key(fingerprint, text);
            if self.by_text.get(&wtxn, &key)?.is_some() {
                continue;
            }
            let mut value = key.to_vec();
            value.extend(vector.iter().flat_map(|x| x.to_le_bytes()));
            // Numbers only grow: each vector goes at the end of the file.
            let flags = heed::PutFlags::APPEND;
            self.vectors
                .put_with_flags(&mut wtxn, flags, &next.to_be_bytes(), &value)?;
            self.by_text.put(&mut wtxn, &key, &next.to_be_bytes())?;
            next += 1;
        }
        let held = self.vectors.len(&wtxn)?;
        if held > max {
            let leave = held - max + (max / 16).max(1);
            let oldest: Vec<(Vec<u8>, Vec<u8>)> = self
                .vectors
                .iter(&wtxn)?
                .take(leave as usize)
                .map(|e| e.map(|(n, v)| (n.to_vec(), v[..HASH.min(v.len())].to_vec())))
                .collect::<heed::Result<_>>()?;
            for (number, key) in oldest {
                self.vectors.delete(&mut wtxn, &number)?;
                self.by_text.delete(&mut wtxn, &key)?;
            }
        }
        Ok(wtxn.commit()?)
    }

    /// How many vectors it holds, and its file's size.
    pub fn size(&self, dir: &Path) -> Result<CacheSize> {
        let rtxn = self.env.read_txn()?;
        Ok(CacheSize {
            vectors: self.vectors.len(&rtxn)?,
            bytes: std::fs::metadata(dir.join("data.mdb")).map_or(0, |m| m.len()),
        })
    }
}

/// Bytes of a SHA-256, at the start of each stored vector.
const HASH: usize = 32;

fn number(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

/// A key this layout never writes: the folder holds something else.
fn foreign(key: &[u8]) -> Error {
    Error::Layout {
        path: PathBuf::from(CACHE_FOLDER),
        problem: format!(
            "the embedding cache holds a key of {} bytes, not 8",
            key.len()
        ),
        source: None,
        fix: "delete the folder: it is a cache, and thehook makes it again".into(),
    }
}

/// The key of `text` as embedded by the model of `fingerprint`.
fn key(fingerprint: &str, text: &str) -> [u8; HASH] {
    let mut hash = Sha256::new();
    hash.update(fingerprint.as_bytes());
    hash.update([0]);
    hash.update(text.as_bytes());
    hash.finalize().into()
}

fn failed(dir: &Path, e: heed::Error) -> Error {
    match e {
        // No room is not damage: deleting the folder would not help.
        heed::Error::Io(io) if crate::error::is_full(&io) => {
            Error::io("cannot write the embedding cache in", dir, io)
        }
        e => Error::Layout {
            path: dir.to_path_buf(),
            problem: format!("cannot open the embedding cache ({e})"),
            source: None,
            fix: "delete the folder: it is a cache, and thehook makes it again".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_comes_back_for_its_model_and_text_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::open(dir.path()).unwrap();
        cache
            .put(
                "model-a",
                &["one", "two"],
                &[vec![1.0, 0.5], vec![0.25, -2.0]],
            )
            .unwrap();
        let got = cache.get("model-a", &["two", "three", "one"]).unwrap();
        assert_eq!(got, [Some(vec![0.25, -2.0]), None, Some(vec![1.0, 0.5])]);
        // Another model never reads these vectors.
        assert_eq!(cache.get("model-b", &["one"]).unwrap(), [None]);
        // A second open in the process shares the environment.
        let again = EmbeddingCache::open(dir.path()).unwrap();
        assert_eq!(again.size(dir.path()).unwrap().vectors, 2);
    }

    #[test]
    fn past_its_size_the_oldest_written_leave_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::open(dir.path()).unwrap();
        let texts = ["a", "b", "c", "d", "e"];
        for text in texts {
            cache.put_within("m", &[text], &[vec![1.0]], 4).unwrap();
        }
        // Five written into room for four: the oldest two leave (one more
        // than needed, a sixteenth of four rounded up).
        let got = cache.get("m", &texts).unwrap();
        let kept: Vec<bool> = got.iter().map(Option::is_some).collect();
        assert_eq!(kept, [false, false, true, true, true]);
        // Written again, a text is new again: it goes to the back.
        cache.put_within("m", &["a"], &[vec![2.0]], 4).unwrap();
        assert_eq!(cache.get("m", &["a"]).unwrap(), [Some(vec![2.0])]);
    }

    #[cfg(target_os = "linux")]
    /// Resident pages of the mappings of `file` in this process, in KiB.
    fn resident_kib(file: &std::path::Path) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let name = file.to_str().unwrap();
        let mut in_file = false;
        let mut total = 0;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if first.contains('-') && !first.ends_with(':') {
                // A mapping's first line: `start-end perms offset dev inode path`.
                in_file = line.ends_with(name);
            } else if let Some(kib) = line.strip_prefix("Rss:") {
                if in_file {
                    total += kib.trim().trim_end_matches(" kB").parse::<u64>().unwrap();
                }
            }
        }
        total
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn pages_read_through_lmdbs_map_are_let_go_and_read_again_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let cache = EmbeddingCache::open(dir.path()).unwrap();
        let texts: Vec<String> = (0..8000).map(|i| format!("text {i}")).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors: Vec<Vec<f32>> = (0..texts.len()).map(|i| vec![i as f32; 384]).collect();
        cache.put("model", &texts, &vectors).unwrap();
        let read = || cache.get("model", &texts).unwrap();
        let file = std::fs::canonicalize(dir.path().join("data.mdb")).unwrap();
        assert_eq!(read()[7999], Some(vectors[7999].clone()));
        let before = resident_kib(&file);
        assert!(
            before > 10_000,
            "12 MB read through the map: {before} KiB resident"
        );
        crate::mapped_pages::let_go(dir.path());
        let after = resident_kib(&file);
        assert!(
            after < before / 4,
            "{before} KiB resident before, {after} after"
        );
        let again: Vec<Vec<f32>> = read().into_iter().map(Option::unwrap).collect();
        assert_eq!(again, vectors, "the same values read again");
    }
}
