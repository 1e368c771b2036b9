//! Every environment variable thehook reads, in one place: its name, what it
//! does, and the one function that reads it. Nothing else in the workspace
//! calls `std::env::var`. The configuration overrides (`THEHOOK_LLM_CLI` and
//! the others that mirror a key of `config.yaml`) are listed in
//! [`crate::config`], and an agent's own variables (where it keeps its
//! settings, whether it trusts a folder) in its module under `agents/`:
//! both read them through [`var`] and [`path`].

use std::ffi::OsString;
use std::path::PathBuf;

/// `1` in the environment of the LLM CLI thehook starts: every hook of that
/// child is a no-op, so a `claude -p` that fires hooks cannot recurse.
pub const CHILD: &str = "THEHOOK_CHILD";
/// `0` keeps the hooks from starting their detached halves (the background
/// sync of session start, the capture worker); benchmarks of the foreground use it.
pub const BACKGROUND: &str = "THEHOOK_BACKGROUND";
/// The native `thehook` of the npm package, set by the Node addon for the
/// binary it runs: hooks `init` writes should run it, and ONNX Runtime lies beside it.
pub const NPM_BIN: &str = "THEHOOK_NPM_BIN";
/// `off` or `0`: lexical-only on purpose, the model is never loaded.
pub const EMBEDDINGS: &str = "THEHOOK_EMBEDDINGS";
/// A folder with `model.onnx` and the tokenizer files (also `embedding.model_dir`).
pub const MODEL_DIR: &str = "THEHOOK_MODEL_DIR";
/// The user-level cache with `model/`, `onnxruntime/` and `embeddings/`.
pub const CACHE_DIR: &str = "THEHOOK_CACHE_DIR";
/// `off`: every item is embedded by the model, none read from the embedding
/// cache, none kept there (the benchmarks of the model's own speed).
pub const EMBEDDING_CACHE: &str = "THEHOOK_EMBEDDING_CACHE";
/// `onnxruntime`: queries are embedded by ONNX Runtime like items, not by
/// the built-in encoder (the A/B switch of the benchmarks).
pub const QUERY_ENGINE: &str = "THEHOOK_QUERY_ENGINE";
/// The weight of BM25 in hybrid fusion (a tuning knob of the benchmarks).
pub const LEXICAL_WEIGHT: &str = "THEHOOK_LEXICAL_WEIGHT";
/// `exact`: every vector search compares the query with every vector, at
/// any index size (the reference the benchmarks measure arroy's trees by).
pub const VECTOR_SEARCH: &str = "THEHOOK_VECTOR_SEARCH";
/// ONNX Runtime's own: the shared library to load.
pub const ORT_DYLIB_PATH: &str = "ORT_DYLIB_PATH";
/// ONNX Runtime's own: keeps its telemetry queue out of `~/.cache/Microsoft/`.
pub const ORT_DISABLE_TELEMETRY: &str = "ORT_DISABLE_TELEMETRY";
/// The XDG base folder for caches.
pub const XDG_CACHE_HOME: &str = "XDG_CACHE_HOME";
/// Any non-empty value turns color off (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";

/// The XDG base folder for user data (opencode keeps its sessions there).
pub const XDG_DATA_HOME: &str = "XDG_DATA_HOME";

/// The user's data folder: `XDG_DATA_HOME`, else `<home>/.local/share`
/// (on every platform, as opencode has it).
pub fn data_home(home: &std::path::Path) -> PathBuf {
    path(XDG_DATA_HOME).unwrap_or_else(|| home.join(".local").join("share"))
}

/// A variable as text; `None` when unset or not UTF-8.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// A variable naming a folder or file; `None` when unset or empty.
pub fn path(name: &str) -> Option<PathBuf> {
    var_os(name).map(PathBuf::from)
}

/// The user's home folder, where agents keep settings and transcripts:
/// `HOME`, and on Windows, where it is seldom set, the profile folder.
pub fn home() -> Option<PathBuf> {
    path("HOME").or_else(|| {
        if cfg!(windows) {
            std::env::home_dir()
        } else {
            None
        }
    })
}

/// The home folder, or an error that says what needs it.
pub fn require_home(needed_for: &str) -> crate::error::Result<PathBuf> {
    home().ok_or_else(|| crate::error::Error::Usage {
        problem: format!("HOME is not set, so {needed_for} cannot be found"),
        source: None,
        fix: "set HOME to your home folder and run the command again".into(),
    })
}

/// `PATH`, to find agents, LLM CLIs and an installed thehook.
pub fn path_var() -> Option<OsString> {
    var_os("PATH")
}

/// Whether this process is thehook's own LLM child (see [`CHILD`]).
pub fn is_child() -> bool {
    var_os(CHILD).is_some_and(|v| v == "1")
}

/// Whether hooks may start their detached halves (see [`BACKGROUND`]).
pub fn background_allowed() -> bool {
    var_os(BACKGROUND).is_none_or(|v| v != "0")
}

/// See [`NPM_BIN`].
pub fn npm_bin() -> Option<PathBuf> {
    path(NPM_BIN)
}

/// See [`EMBEDDINGS`].
pub fn embeddings_disabled() -> bool {
    var(EMBEDDINGS).is_some_and(|v| v == "off" || v == "0")
}

/// Whether the model folder comes from [`MODEL_DIR`] (for the report of where it was found).
pub fn model_dir_is_set() -> bool {
    var_os(MODEL_DIR).is_some()
}

/// See [`ORT_DYLIB_PATH`].
pub fn ort_dylib_path() -> Option<PathBuf> {
    path(ORT_DYLIB_PATH)
}

/// See [`QUERY_ENGINE`].
pub fn queries_on_onnx_runtime() -> bool {
    var(QUERY_ENGINE).is_some_and(|v| v == "onnxruntime")
}

/// See [`EMBEDDING_CACHE`].
pub fn embedding_cache_off() -> bool {
    var(EMBEDDING_CACHE).is_some_and(|v| v == "off" || v == "0")
}

/// See [`VECTOR_SEARCH`].
pub fn exact_vector_search() -> bool {
    var(VECTOR_SEARCH).is_some_and(|v| v == "exact")
}

/// See [`LEXICAL_WEIGHT`]; `None` when unset or not a number.
pub fn lexical_weight() -> Option<f32> {
    var(LEXICAL_WEIGHT).and_then(|w| w.parse().ok())
}

/// The user-level cache folder: `$THEHOOK_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/thehook`, else `~/.cache/thehook`.
pub fn cache_dir() -> Option<PathBuf> {
    path(CACHE_DIR)
        .or_else(|| path(XDG_CACHE_HOME).map(|d| d.join("thehook")))
        .or_else(|| home().map(|h| h.join(".cache").join("thehook")))
}

/// Whether color output is refused (see [`NO_COLOR`]).
pub fn no_color() -> bool {
    var_os(NO_COLOR).is_some()
}

/// Sets [`ORT_DISABLE_TELEMETRY`] unless the user set it. ONNX Runtime 1.31
/// on Linux keeps a telemetry queue in `~/.cache/Microsoft/` (with the
/// binary's path) even when telemetry is disabled through its API; only this
/// variable stops it. The Node package sets it in JavaScript before it
/// loads the addon (`main.js`), through Node's own lock on the environment.
///
/// # Safety
///
/// No other thread may exist: changing the environment races with any
/// thread that reads it (`getenv` may read freed memory). The binary calls
/// it first thing in `main`.
pub unsafe fn quiet_onnx_runtime_before_threads() {
    if std::env::var_os(ORT_DISABLE_TELEMETRY).is_none() {
        // Edition 2021: `set_var` is not yet `unsafe`, but this function's
        // contract is why it is sound.
        std::env::set_var(ORT_DISABLE_TELEMETRY, "1");
    }
}

/// The first executable called `name` in the absolute folders of `path_var`
/// (relative entries would depend on where a hook happens to run). On
/// Windows `name` is also tried with each extension of `PATHEXT`: npm
/// installs `claude.cmd`, and a bare `claude` there is no program.
pub fn find_on_path(path_var: &std::ffi::OsStr, name: &str) -> Option<PathBuf> {
    let pathext = if cfg!(windows) {
        Some(var("PATHEXT").unwrap_or_else(|| DEFAULT_PATHEXT.into()))
    } else {
        None
    };
    let names = executable_names(name, pathext.as_deref());
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| is_executable(p))
}

/// What Windows assumes when `PATHEXT` is unset.
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// The file names `name` runs as: itself, or with `PATHEXT`'s extensions
/// when one is given and `name` has none.
fn executable_names(name: &str, pathext: Option<&str>) -> Vec<String> {
    match pathext {
        Some(exts) if std::path::Path::new(name).extension().is_none() => exts
            .split(';')
            .filter(|e| e.starts_with('.') && e.len() > 1)
            .map(|e| format!("{name}{}", e.to_ascii_lowercase()))
            .collect(),
        _ => vec![name.to_string()],
    }
}

#[cfg(unix)]
fn is_executable(path: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Windows has no execute bit: the extension, chosen by the caller, says it.
#[cfg(not(unix))]
fn is_executable(path: &std::path::Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_names_take_pathext_extensions_unless_they_have_one() {
        assert_eq!(executable_names("claude", None), ["claude"]);
        assert_eq!(
            executable_names("claude", Some(DEFAULT_PATHEXT)),
            ["claude.com", "claude.exe", "claude.bat", "claude.cmd"]
        );
        assert_eq!(
            executable_names("gemini", Some(".EXE;;.Cmd;junk")),
            ["gemini.exe", "gemini.cmd"]
        );
        assert_eq!(
            executable_names("thehook.exe", Some(DEFAULT_PATHEXT)),
            ["thehook.exe"]
        );
    }

    #[test]
    fn no_source_file_but_this_one_reads_the_environment() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let readers: Vec<String> = walkdir::WalkDir::new(&src)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
            .filter(|e| {
                let name = e.file_name().to_string_lossy();
                // Tests may set up their own environment.
                name != "env.rs"
                    && name != "tests.rs"
                    && !e.path().components().any(|c| c.as_os_str() == "tests")
            })
            .filter(|e| {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                text.contains("std::env::var") || text.contains("env::var_os(")
            })
            .map(|e| e.path().strip_prefix(&src).unwrap().display().to_string())
            .collect();
        assert!(
            readers.is_empty(),
            "read the environment outside env.rs: {readers:?}"
        );
    }
}
