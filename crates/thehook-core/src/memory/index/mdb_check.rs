//! Checks `data.mdb` against its own meta pages before LMDB maps it.
//!
//! LMDB memory-maps the file and trusts it: a file shorter than its meta pages
//! claim makes the process die of SIGBUS on first touch, and garbage makes it
//! read wild pages. Neither may take down a hook, so we read the two meta
//! pages ourselves (layout of `MDB_meta` in lmdb's `mdb.c`, 64-bit build) and
//! refuse a file that does not add up.

use std::io::Read;
use std::path::{Path, PathBuf};

const MDB_MAGIC: u32 = 0xBEEF_C0DE;
const MDB_DATA_VERSION: u32 = 1;
const P_META: u16 = 0x08;
/// No root page (an empty tree).
const P_INVALID: u64 = u64::MAX;

/// One meta page, as far as this check needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Meta {
    page_size: u64,
    last_page: u64,
    txn_id: u64,
    free_root: u64,
    main_root: u64,
}

/// Why `data.mdb` cannot be opened safely.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unsound {
    #[error("cannot {action} {}: {source}", path.display())]
    Unreadable {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the file is {len} bytes, too short to hold LMDB's meta pages")]
    NoMetaPages { len: u64 },
    #[error("meta page {page}: {problem}")]
    BadMeta { page: u64, problem: BadMeta },
    #[error("the file is {len} bytes, shorter than its two {page_size}-byte meta pages")]
    ShorterThanMetaPages { len: u64, page_size: u64 },
    #[error("cannot read meta page 1: {0}")]
    SecondMetaUnreadable(#[source] std::io::Error),
    #[error("the two meta pages disagree on the page size")]
    PageSizesDisagree,
    #[error("the meta page claims an impossible size")]
    ImpossibleSize,
    #[error("the file is {len} bytes but its meta page says it holds {pages} pages ({needed} bytes): it was truncated")]
    Truncated { len: u64, pages: u64, needed: u64 },
    #[error("the {tree} tree's root page {root} lies past the last page {last}")]
    RootPastEnd {
        tree: &'static str,
        root: u64,
        last: u64,
    },
}

/// Why a page is not a meta page this check can read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadMeta {
    #[error("not an LMDB meta page")]
    NotMeta,
    #[error("wrong magic number: this is not an LMDB file")]
    WrongMagic,
    #[error("unsupported LMDB data version {0}")]
    Version(u32),
    #[error("implausible page size {0}")]
    PageSize(u64),
}

/// `Ok(())` when the file is absent (a new index) or consistent, else the
/// reason it cannot be opened safely.
pub(crate) fn check_data_file(path: &Path) -> Result<(), Unsound> {
    let unreadable = |action, source| Unsound::Unreadable {
        action,
        path: path.to_path_buf(),
        source,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(unreadable("read", e)),
    };
    let len = file.metadata().map_err(|e| unreadable("stat", e))?.len();
    let mut first = [0u8; 160];
    file.read_exact(&mut first)
        .map_err(|_| Unsound::NoMetaPages { len })?;
    let meta0 = parse_meta(&first, 0).map_err(|problem| Unsound::BadMeta { page: 0, problem })?;
    let page_size = meta0.page_size;
    if len < 2 * page_size {
        return Err(Unsound::ShorterThanMetaPages { len, page_size });
    }
    let mut second = [0u8; 160];
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(page_size))
        .and_then(|_| file.read_exact(&mut second))
        .map_err(Unsound::SecondMetaUnreadable)?;
    let meta1 = parse_meta(&second, 1).map_err(|problem| Unsound::BadMeta { page: 1, problem })?;
    if meta1.page_size != page_size {
        return Err(Unsound::PageSizesDisagree);
    }
    // LMDB uses the meta page of the newest committed transaction.
    let live = if meta1.txn_id > meta0.txn_id {
        meta1
    } else {
        meta0
    };
    let needed = (live.last_page + 1)
        .checked_mul(page_size)
        .ok_or(Unsound::ImpossibleSize)?;
    if len < needed {
        return Err(Unsound::Truncated {
            len,
            pages: live.last_page + 1,
            needed,
        });
    }
    for (tree, root) in [("free-list", live.free_root), ("main", live.main_root)] {
        if root != P_INVALID && root > live.last_page {
            return Err(Unsound::RootPastEnd {
                tree,
                root,
                last: live.last_page,
            });
        }
    }
    Ok(())
}

fn parse_meta(page: &[u8; 160], expected_pgno: u64) -> Result<Meta, BadMeta> {
    let u16_at = |o: usize| u16::from_le_bytes(page[o..o + 2].try_into().expect("2 bytes"));
    let u32_at = |o: usize| u32::from_le_bytes(page[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |o: usize| u64::from_le_bytes(page[o..o + 8].try_into().expect("8 bytes"));
    // MDB_page header: pgno (8), pad (2), flags (2), lower/upper (4) = 16 bytes.
    if u64_at(0) != expected_pgno || u16_at(10) & P_META == 0 {
        return Err(BadMeta::NotMeta);
    }
    // MDB_meta: magic (4), version (4), address (8), mapsize (8), then two
    // MDB_db of 48 bytes (free list first; its md_pad holds the page size),
    // then last_pg (8) and txnid (8).
    let m = 16;
    if u32_at(m) != MDB_MAGIC {
        return Err(BadMeta::WrongMagic);
    }
    if u32_at(m + 4) != MDB_DATA_VERSION {
        return Err(BadMeta::Version(u32_at(m + 4)));
    }
    let page_size = u32_at(m + 24) as u64;
    if !(512..=65536).contains(&page_size) || !page_size.is_power_of_two() {
        return Err(BadMeta::PageSize(page_size));
    }
    Ok(Meta {
        page_size,
        free_root: u64_at(m + 24 + 40),
        main_root: u64_at(m + 24 + 48 + 40),
        last_page: u64_at(m + 24 + 96),
        txn_id: u64_at(m + 24 + 104),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real_env(dir: &Path) {
        // SAFETY: a new temporary folder, opened once by this test alone:
        // nothing else maps or writes its files.
        let env = unsafe {
            heed::EnvOpenOptions::new()
                .map_size(1 << 20)
                .max_dbs(2)
                .open(dir)
        }
        .unwrap();
        let wtxn = env.write_txn().unwrap();
        let db: heed::Database<heed::types::Str, heed::types::Str> = env
            .create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(heed::CommitOrAbort::<_, ()>::Commit(
                    dbo.create_database(wtxn, Some("t"))?,
                ))
            })
            .unwrap()
            .unwrap_commit();
        let mut wtxn = env.write_txn().unwrap();
        for i in 0..500 {
            db.put(&mut wtxn, &format!("key{i}"), &"value".repeat(20))
                .unwrap();
        }
        wtxn.commit().unwrap();
    }

    #[test]
    fn a_real_environment_passes() {
        let dir = tempfile::tempdir().unwrap();
        real_env(dir.path());
        check_data_file(&dir.path().join("data.mdb")).unwrap();
    }

    #[test]
    fn a_missing_file_is_a_new_index() {
        let dir = tempfile::tempdir().unwrap();
        check_data_file(&dir.path().join("data.mdb")).unwrap();
    }

    #[test]
    fn truncation_is_caught_at_every_length() {
        let dir = tempfile::tempdir().unwrap();
        real_env(dir.path());
        let full = std::fs::read(dir.path().join("data.mdb")).unwrap();
        let path = dir.path().join("cut.mdb");
        for cut in [0, 10, 100, 4096, 8192, full.len() / 2, full.len() - 1] {
            std::fs::write(&path, &full[..cut]).unwrap();
            let err = check_data_file(&path).unwrap_err();
            assert!(!err.to_string().is_empty(), "cut at {cut} passed");
        }
    }

    #[test]
    fn garbage_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.mdb");
        let garbage: Vec<u8> = (0..100_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        std::fs::write(&path, garbage).unwrap();
        assert!(check_data_file(&path)
            .unwrap_err()
            .to_string()
            .contains("meta page 0"));
    }
}
