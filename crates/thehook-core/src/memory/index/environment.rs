//! The LMDB environment under an index: opened once per process and shared
//! (LMDB must not open one file twice in a process), its databases, and the
//! files a damaged index leaves to delete.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arroy::distances::BinaryQuantizedCosine;
use heed::types::{Bytes, SerdeJson, Str, Unit};
use heed::{CommitOrAbort, Env, EnvOpenOptions, WithoutTls};

use super::{FileRecord, Header, Key};
use crate::error::{Error, Result};
use crate::store::item::Item;

/// LMDB's map is address space, not disk: the file grows as data is written.
const MAP_SIZE: usize = 8 << 30;

#[derive(Clone, Copy)]
pub(super) struct Dbs {
    pub(super) header: heed::Database<'static, Str, SerdeJson<Header>>,
    pub(super) items: heed::Database<'static, Key, SerdeJson<Item>>,
    pub(super) ids: heed::Database<'static, Str, Key>,
    pub(super) files: heed::Database<'static, Str, SerdeJson<FileRecord>>,
    pub(super) postings: heed::Database<'static, Str, Bytes>,
    /// `<type>\0<date>\0<key>` → key: the newest items of a type, in order.
    pub(super) recent: heed::Database<'static, Str, Key>,
    /// An item that asks → the item that replies to it (its share of the
    /// question's BM25 score, [`REPLY_SHARE`]).
    pub(super) replies: heed::Database<'static, Key, Key>,
    /// `<path>\0i<key>` and `<path>\0s<session file>`: the items that name
    /// a repository file and the sessions that changed it ([`super::paths`]).
    pub(super) paths: heed::Database<'static, Str, Unit>,
    /// key → the item's vector in half precision ([`super::vectors`]).
    pub(super) vectors: heed::Database<'static, Key, Bytes>,
    /// arroy's trees over one-bit codes of the vectors, for large indexes.
    pub(super) trees: arroy::Database<'static, BinaryQuantizedCosine>,
    /// `<date>\0<session file>` → its key ([`super::session_keys`]).
    pub(super) session_dates: heed::Database<'static, Str, Bytes>,
    /// A session by branch and by id, a file by tail and by name's words
    /// ([`super::session_keys`]).
    pub(super) session_keys: heed::Database<'static, Str, Bytes>,
}

/// Environments open in this process, by path, with how many leases hold
/// each. LMDB must not open one file twice in a process (heed refuses with
/// `EnvAlreadyOpened`), yet one process may hold several `Memory`s of a
/// project: the one a long-lived process keeps (the MCP server, the Node
/// addon, `thehook ui`: memory/shared.rs) beside one opened for a
/// single call. They share one environment. (The addon's `cli()` runs the
/// native binary as a child process, with its own.)
type OpenEnvs = std::sync::Mutex<HashMap<PathBuf, (Env<WithoutTls>, usize)>>;

fn open_envs() -> &'static OpenEnvs {
    static OPEN: std::sync::OnceLock<OpenEnvs> = std::sync::OnceLock::new();
    OPEN.get_or_init(Default::default)
}

/// A hold on a shared environment; the last one to go lets it close.
pub(super) struct Lease {
    key: PathBuf,
}

impl Lease {
    /// The environment at `key` if this process has it open already.
    pub(super) fn existing(key: &Path) -> Option<(Env<WithoutTls>, Lease)> {
        let mut open = open_envs().lock().unwrap_or_else(|p| p.into_inner());
        let (env, holders) = open.get_mut(key)?;
        *holders += 1;
        Some((
            env.clone(),
            Lease {
                key: key.to_path_buf(),
            },
        ))
    }

    pub(super) fn new(key: &Path, env: &Env<WithoutTls>) -> Lease {
        let mut open = open_envs().lock().unwrap_or_else(|p| p.into_inner());
        open.entry(key.to_path_buf())
            .and_modify(|(_, holders)| *holders += 1)
            .or_insert_with(|| (env.clone(), 1));
        Lease {
            key: key.to_path_buf(),
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut open = open_envs().lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, holders)) = open.get_mut(&self.key) {
            *holders -= 1;
            if *holders == 0 {
                open.remove(&self.key);
            }
        }
    }
}

pub(super) fn open_env(path: &Path) -> heed::Result<Env<WithoutTls>> {
    std::fs::create_dir_all(path)?;
    let mut options = EnvOpenOptions::new().read_txn_without_tls();
    options.map_size(MAP_SIZE).max_dbs(14);
    // SAFETY: heed asks that nothing but LMDB modify the mapped files while
    // they are open, and that they not live on a network file system (where
    // LMDB's lock file does not hold). Only LMDB writes data.mdb and
    // lock.mdb: thehook never writes them itself, and deletes them
    // (`wipe`) only under the project lock, to rebuild an index that would
    // not open. The index lives in the repository's .thehook/index/, so a
    // repository on NFS or SMB is not supported (docs/search.md says so).
    // No NO_LOCK flag, and transactions are short.
    unsafe { options.open(path) }
}

/// Opens the databases with a read transaction when they exist, so that
/// opening never waits for another process's write (a long `reindex`);
/// creates them otherwise.
pub(super) fn open_dbs(env: &Env<WithoutTls>) -> heed::Result<Dbs> {
    let rtxn = env.read_txn()?;
    let existing = env
        .open_databases_and_commit(rtxn, |dbo, rtxn| -> heed::Result<_> {
            let all = (|| {
                Some((
                    dbo.open_database(rtxn, Some("header")).ok()??,
                    dbo.open_database(rtxn, Some("items")).ok()??,
                    dbo.open_database(rtxn, Some("ids")).ok()??,
                    dbo.open_database(rtxn, Some("files")).ok()??,
                    dbo.open_database(rtxn, Some("postings")).ok()??,
                    dbo.open_database(rtxn, Some("recent")).ok()??,
                    dbo.open_database(rtxn, Some("vectors")).ok()??,
                    dbo.open_database(rtxn, Some("replies")).ok()??,
                    dbo.open_database(rtxn, Some("paths")).ok()??,
                    dbo.open_database(rtxn, Some("trees")).ok()??,
                    dbo.open_database(rtxn, Some("session_dates")).ok()??,
                    dbo.open_database(rtxn, Some("session_keys")).ok()??,
                ))
            })();
            Ok(match all {
                Some(dbs) => CommitOrAbort::Commit(dbs),
                None => CommitOrAbort::Abort(()),
            })
        })?
        .commit();
    let dbs = match existing {
        Some(dbs) => dbs,
        None => {
            let wtxn = env.write_txn()?;
            env.create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit((
                    dbo.create_database(wtxn, Some("header"))?,
                    dbo.create_database(wtxn, Some("items"))?,
                    dbo.create_database(wtxn, Some("ids"))?,
                    dbo.create_database(wtxn, Some("files"))?,
                    dbo.create_database(wtxn, Some("postings"))?,
                    dbo.create_database(wtxn, Some("recent"))?,
                    dbo.create_database(wtxn, Some("vectors"))?,
                    dbo.create_database(wtxn, Some("replies"))?,
                    dbo.create_database(wtxn, Some("paths"))?,
                    dbo.create_database(wtxn, Some("trees"))?,
                    dbo.create_database(wtxn, Some("session_dates"))?,
                    dbo.create_database(wtxn, Some("session_keys"))?,
                )))
            })?
            .unwrap_commit()
        }
    };
    Ok(Dbs {
        header: dbs.0,
        items: dbs.1,
        ids: dbs.2,
        files: dbs.3,
        postings: dbs.4,
        recent: dbs.5,
        vectors: dbs.6,
        replies: dbs.7,
        paths: dbs.8,
        trees: dbs.9,
        session_dates: dbs.10,
        session_keys: dbs.11,
    })
}

/// Deletes the index folder's files (only LMDB's own two).
pub(super) fn wipe(path: &Path) -> Result<()> {
    for name in ["data.mdb", "lock.mdb"] {
        let file = path.join(name);
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("cannot remove the damaged index file", file, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod shared_env_tests {
    use super::*;
    use crate::memory::index::Index;
    use crate::project::Project;

    #[test]
    fn one_process_holds_the_same_index_twice_and_closes_it_after_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(project.dir()).unwrap();
        let (first, _) = Index::open(&project, "model-a").unwrap();
        // Without sharing, heed refuses this with EnvAlreadyOpened.
        let (second, rebuilt) = Index::open(&project, "model-a").unwrap();
        assert_eq!(rebuilt, None);
        drop(first);
        assert!(second.header().unwrap().is_some(), "still usable");
        drop(second);
        let key = project.index_dir().canonicalize().unwrap();
        let open = open_envs().lock().unwrap().contains_key(&key);
        assert!(!open, "closed when the last holder went");
        let (again, rebuilt) = Index::open(&project, "model-a").unwrap();
        assert_eq!(rebuilt, None);
        drop(again);
    }
}
