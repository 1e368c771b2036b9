//! What the listing learned of each transcript, kept in
//! `.thehook/index/sessions.json` (machine-local and disposable, like the
//! rest of the index) and reused while the file's size and modification time
//! stay the same: reading every transcript again costs seconds on a long
//! history, and agents list sessions mid-task.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::listed::Listed;
use crate::project::Project;

/// Bumped when [`Listed`] or how it is derived changes.
const VERSION: u32 = 1;

/// A file's size and modification time (ns): what says it is unchanged.
pub(super) type Stamp = (u64, u128);

pub(super) fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?;
    let ns = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((meta.len(), ns))
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    entries: HashMap<PathBuf, Cached>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Cached {
    stamp: Stamp,
    listed: Listed,
}

#[derive(Default)]
pub(super) struct ListingCache {
    /// None: nowhere to keep it (a project without `.thehook/`).
    file: Option<PathBuf>,
    entries: HashMap<PathBuf, Cached>,
    changed: bool,
}

impl ListingCache {
    /// The project's cache; empty when missing, unreadable or of another version.
    pub(super) fn load(project: &Project) -> ListingCache {
        if !project.dir().is_dir() {
            return ListingCache::default();
        }
        let file = project.dir().join("index").join("sessions.json");
        let entries = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice::<Stored>(&b).ok())
            .filter(|s| s.version == VERSION)
            .map(|s| s.entries)
            .unwrap_or_default();
        ListingCache {
            file: Some(file),
            entries,
            changed: false,
        }
    }

    pub(super) fn get(&self, path: &Path, stamp: Stamp) -> Option<Listed> {
        let cached = self.entries.get(path)?;
        (cached.stamp == stamp).then(|| cached.listed.clone())
    }

    pub(super) fn put(&mut self, path: PathBuf, stamp: Stamp, listed: Listed) {
        self.entries.insert(path, Cached { stamp, listed });
        self.changed = true;
    }

    /// Forgets transcripts that are gone.
    pub(super) fn retain(&mut self, paths: &HashSet<&Path>) {
        let before = self.entries.len();
        self.entries.retain(|p, _| paths.contains(p.as_path()));
        self.changed |= self.entries.len() != before;
    }

    /// Writes the cache when it changed. A cache that cannot be written is
    /// no reason to fail a listing.
    pub(super) fn save(self) {
        let Some(file) = self.file.filter(|_| self.changed) else {
            return;
        };
        let stored = Stored {
            version: VERSION,
            entries: self.entries,
        };
        if let Ok(bytes) = serde_json::to_vec(&stored) {
            if let Some(dir) = file.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = crate::store::write_atomic(&file, &bytes);
        }
    }
}
