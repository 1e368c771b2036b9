//! Where this addon works: the project's memory (one open per project per
//! process, kept by the core), and the folder the addon was loaded from,
//! whose native `thehook` and ONNX Runtime the package ships.

use std::path::{Path, PathBuf};

use thehook_core::memory::shared::with_memory;
use thehook_core::memory::Refresh;
use thehook_core::model::SearchPaths;
use thehook_core::Memory;

use crate::task::Failure;

/// Runs `f` on the memory of the project at (or above) `dir` (default: the
/// current folder), opened once per process and kept warm, refreshed as
/// far as `refresh` looks.
pub(crate) fn with<T>(
    dir: Option<&str>,
    create: bool,
    refresh: Refresh,
    f: impl FnOnce(&mut Memory) -> thehook_core::Result<T>,
) -> Result<T, Failure> {
    let start = start_dir(dir)?;
    Ok(with_memory(&start, &search_paths(), create, refresh, f)?)
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
        .or_else(|| addon_dir().map(|d| d.join(format!("thehook{}", std::env::consts::EXE_SUFFIX))))
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
    let file = addon_file()?;
    // Symlinks resolved on Unix (npm links packages); on Windows the loader
    // already gives the real path, and `canonicalize` would turn it into a
    // `\\?\C:\...` path that hook commands must not carry.
    let file = if cfg!(windows) {
        file
    } else {
        file.canonicalize().ok()?
    };
    file.parent().map(Path::to_path_buf)
}

/// The loaded file that holds this function, asked of the dynamic loader.
#[cfg(unix)]
fn addon_file() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: `Dl_info` is plain C data (pointers and integers), for which
    // all zeros is a valid value: null pointers, which dladdr overwrites.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let here = addon_file as *const libc::c_void;
    // SAFETY: `here` is an address in this library and `info` a valid
    // `Dl_info` to fill; dladdr only reads the loader's tables.
    if unsafe { libc::dladdr(here, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr succeeded and `dli_fname` is not null: it points at
    // the NUL-terminated name the loader keeps for this library, which
    // stays loaded while this function of it runs; the name is copied
    // before it returns.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
}

/// The loaded file that holds this function: the module whose address
/// range holds it, then that module's file name.
#[cfg(windows)]
fn addon_file() -> Option<PathBuf> {
    use std::os::windows::ffi::OsStringExt;
    use windows_sys::Win32::System::LibraryLoader::{
        GetModuleFileNameW, GetModuleHandleExW, GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
        GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
    };
    let mut module = std::ptr::null_mut();
    let here = addon_file as *const u16;
    // SAFETY: with FROM_ADDRESS the "name" is an address inside a loaded
    // module; UNCHANGED_REFCOUNT takes no reference that would need freeing.
    let found = unsafe {
        GetModuleHandleExW(
            GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
            here,
            &mut module,
        )
    };
    if found == 0 {
        return None;
    }
    // Long paths: grow the buffer while the name fills it.
    let mut buf = vec![0u16; 512];
    loop {
        // SAFETY: `buf` holds `buf.len()` writable u16s.
        let n = unsafe { GetModuleFileNameW(module, buf.as_mut_ptr(), buf.len() as u32) } as usize;
        if n == 0 {
            return None;
        }
        if n < buf.len() {
            return Some(PathBuf::from(std::ffi::OsString::from_wide(&buf[..n])));
        }
        if buf.len() >= 1 << 15 {
            return None;
        }
        buf.resize(buf.len() * 2, 0);
    }
}
