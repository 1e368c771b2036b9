//! One open memory per project per process, for processes that serve many
//! calls (the MCP server, the Node addon): LMDB refuses a second open of the
//! same environment in one process, and the embedding model should stay warm
//! between calls.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::Result;
use crate::memory::index::Embedding;
use crate::memory::syncing::{Refresh, SyncPolicy, NO_PROGRESS};
use crate::memory::Memory;
use crate::model::SearchPaths;
use crate::project::Project;

type Shared = Arc<Mutex<Memory>>;

fn open_memories() -> &'static Mutex<HashMap<PathBuf, Shared>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Shared>>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
}

/// Runs `f` on the memory of the project at (or above) `start`, opened on
/// the first call and kept; the index is refreshed first (as far as
/// `refresh` looks), so markdown edited or captured since the last call is
/// seen. `create` starts a memory where there is none (as `remember` does).
pub fn with_memory<T>(
    start: &Path,
    paths: &SearchPaths,
    create: bool,
    refresh: Refresh,
    f: impl FnOnce(&mut Memory) -> Result<T>,
) -> Result<T> {
    let project = Project::discover(start);
    let root = project.root().to_path_buf();
    let shared = {
        let mut open = open_memories().lock().unwrap_or_else(|p| p.into_inner());
        match open.get(&root) {
            Some(m) => m.clone(),
            None => {
                let memory = Memory::open(&project, paths, create)?;
                let shared = Arc::new(Mutex::new(memory));
                open.insert(root, shared.clone());
                shared
            }
        }
    };
    let mut memory = shared.lock().unwrap_or_else(|p| p.into_inner());
    // An earlier call's notices are not this one's: dropped so they do not
    // pile up over thousands of calls. This call's, from the refresh on,
    // are there for `f` to take ([`Memory::recall_answer`] does).
    memory.take_notices();
    memory.sync(SyncPolicy::answer(refresh, Embedding::All), NO_PROGRESS)?;
    f(&mut memory)
}
