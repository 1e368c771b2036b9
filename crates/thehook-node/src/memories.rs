//! Where this addon works: the project's memory (one open per project per
//! process, kept by the core), and the folder the addon was loaded from,
//! whose native `thehook` and ONNX Runtime the package ships.

use std::path::{Path, PathBuf};

use thehook_core::memory::embed::SearchPaths;
use thehook_core::memory::shared::with_memory;
use thehook_core::Memory;

use crate::task::Failure;

/// Runs `f` on the memory of the project at (or above) `dir` (default: the
/// current folder), opened once per process and kept warm.
pub(crate) fn with<T>(
    dir: Option<&str>,
    create: bool,
    f: impl FnOnce(&mut Memory) -> thehook_core::Result<T>,
) -> Result<T, Failure> {
    let start = start_dir(dir)?;
    Ok(with_memory(&start, &search_paths(), create, f)?)
}

/// `dir`, or the current folder.
pub(crate) fn start_dir(dir: Option<&str>) -> Result<PathBuf, Failure> {
    match dir {
        Some(d) => Ok(PathBuf::from(d)),
        None => {
            std::env::current_dir().map_err(|e| Failure::usage(format!("no current folder: {e}")))
        }
    }
}

/// The native `thehook` of this package: `THEHOOK_NPM_BIN` when set (tests
/// of a checkout), else the one beside the addon.
pub(crate) fn native_binary() -> Option<PathBuf> {
    thehook_core::env::npm_bin()
        .or_else(|| addon_dir().map(|d| d.join("thehook")))
        .filter(|p| p.is_file())
}

/// Where the model and ONNX Runtime are looked for: beside this addon (the
/// platform package ships ONNX Runtime there), then the usual places.
pub(crate) fn search_paths() -> SearchPaths {
    let mut paths = SearchPaths::from_env();
    if let Some(dir) = addon_dir() {
        paths.beside.insert(0, dir);
    }
    paths
}

/// The folder of this `.node` file (Node's `current_exe` is `node` itself).
pub(crate) fn addon_dir() -> Option<PathBuf> {
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
