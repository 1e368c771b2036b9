//! What the hooks keep between runs in `.thehook/index/` (git-ignored,
//! machine-local), one typed cache: each [`SideFile`] holds a value with
//! the key it is fresh for, and a reader gets the value only when it brings
//! that key. A file that is missing, unreadable or made for another key is
//! a miss, never an error: the run that misses makes the value again.
//!
//! The files, each declared beside what it keeps:
//! - `git-context.json`: the git context, for git's state
//!   (`inject::git_context`);
//! - `context-query.json`: the context query's vector, for the query and
//!   the model (`inject::session_start`);
//! - `token-counts.json`: exact token counts of the lines a session start
//!   may inject, for the model's tokenizer (`inject::tokens`).

use std::marker::PhantomData;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::project::Project;
use crate::store::write_atomic;

/// A value of type `V` kept in `.thehook/index/<name>`, fresh for a key of
/// type `K`.
pub(crate) struct SideFile<K, V> {
    name: &'static str,
    kept: PhantomData<fn() -> (K, V)>,
}

#[derive(Serialize)]
struct Stored<'a, K, V> {
    key: &'a K,
    value: &'a V,
}

#[derive(Deserialize)]
struct Loaded<K, V> {
    key: K,
    value: V,
}

impl<K, V> SideFile<K, V>
where
    K: Serialize + DeserializeOwned + PartialEq,
    V: Serialize + DeserializeOwned,
{
    pub(crate) const fn new(name: &'static str) -> Self {
        SideFile {
            name,
            kept: PhantomData,
        }
    }

    fn path(&self, project: &Project) -> PathBuf {
        project.index_dir().join(self.name)
    }

    /// Whether any value is kept, whatever its key.
    pub(crate) fn exists(&self, project: &Project) -> bool {
        self.path(project).exists()
    }

    /// The value kept for `key`, if that is the key it was kept for.
    pub(crate) fn read(&self, project: &Project, key: &K) -> Option<V> {
        let bytes = std::fs::read(self.path(project)).ok()?;
        let loaded: Loaded<K, V> = serde_json::from_slice(&bytes).ok()?;
        (loaded.key == *key).then_some(loaded.value)
    }

    /// Keeps `value` for `key`, in place of what was kept.
    pub(crate) fn write(&self, project: &Project, key: &K, value: &V) -> Result<()> {
        let path = self.path(project);
        let json = serde_json::to_vec(&Stored { key, value }).map_err(|e| Error::Layout {
            path: path.clone(),
            problem: format!("cannot write the cache ({e})"),
            source: crate::error::cause(e),
            fix: "delete the file; it is a cache".into(),
        })?;
        write_atomic(&path, &json)
    }
}

#[cfg(test)]
mod tests {
    use super::SideFile;
    use crate::project::Project;

    const KEPT: SideFile<String, Vec<u32>> = SideFile::new("kept.json");

    #[test]
    fn a_value_comes_back_only_for_the_key_it_was_kept_for() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        assert!(!KEPT.exists(&project));
        assert_eq!(KEPT.read(&project, &"a".into()), None);
        KEPT.write(&project, &"a".into(), &vec![1, 2]).unwrap();
        assert!(KEPT.exists(&project));
        assert_eq!(KEPT.read(&project, &"a".into()), Some(vec![1, 2]));
        assert_eq!(KEPT.read(&project, &"b".into()), None);
        // A damaged file is a miss, not an error.
        std::fs::write(project.index_dir().join("kept.json"), b"{\"key\":").unwrap();
        assert_eq!(KEPT.read(&project, &"a".into()), None);
    }
}
