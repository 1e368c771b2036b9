//! One open memory per project per process: LMDB refuses a second open of
//! the same environment, and the embedding model should stay warm.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use thehook_core::memory::embed::SearchPaths;
use thehook_core::{Memory, Project};

use crate::task::Failure;

type Shared = Arc<Mutex<Memory>>;

fn open_memories() -> &'static Mutex<HashMap<PathBuf, Shared>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Shared>>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
}

/// Runs `f` on the memory of the project at (or above) `dir`, opening it once.
pub fn with<T>(
    dir: Option<&str>,
    create: bool,
    f: impl FnOnce(&mut Memory) -> thehook_core::Result<T>,
) -> Result<T, Failure> {
    let start = match dir {
        Some(d) => PathBuf::from(d),
        None => std::env::current_dir()
            .map_err(|e| Failure::usage(format!("no current folder: {e}")))?,
    };
    let root = Project::discover(&start).root().to_path_buf();
    let shared = {
        let mut open = open_memories().lock().unwrap_or_else(|p| p.into_inner());
        match open.get(&root) {
            Some(m) => m.clone(),
            None => {
                let memory = Memory::open(&root, &search_paths(), create)?;
                let shared = Arc::new(Mutex::new(memory));
                open.insert(root.clone(), shared.clone());
                shared
            }
        }
    };
    let mut memory = shared.lock().unwrap_or_else(|p| p.into_inner());
    memory.sync(&|_, _| {})?;
    Ok(f(&mut memory)?)
}

/// Where the model and ONNX Runtime are looked for: beside this addon (the
/// platform package ships ONNX Runtime there), then the usual places.
pub fn search_paths() -> SearchPaths {
    let mut paths = SearchPaths::from_env();
    if let Some(dir) = addon_dir() {
        paths.beside.insert(0, dir);
    }
    paths
}

/// The folder of this `.node` file (Node's `current_exe` is `node` itself).
pub fn addon_dir() -> Option<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let here = addon_dir as *const libc::c_void;
        // SAFETY: dladdr only reads the loader's tables; the name it returns
        // lives as long as the library stays loaded (for ever: -z nodelete).
        if unsafe { libc::dladdr(here, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
        let path = Path::new(std::ffi::OsStr::from_bytes(name.to_bytes()));
        path.canonicalize().ok()?.parent().map(Path::to_path_buf)
    }
    #[cfg(not(unix))]
    {
        None
    }
}
