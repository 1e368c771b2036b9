//! Paths as a session file may hold them: relative to the repository, never
//! absolute, never in someone's home folder. Session files are committed, so
//! `/Users/<name>/...` in one would publish a developer's user name and disk
//! layout, and would mean nothing on a teammate's machine anyway.
//!
//! A transcript names files as the agent saw them: Claude Code absolute,
//! Codex patches relative to its working folder. Both become relative to the
//! transcript's own `cwd`; what lies outside it (another repository, `/tmp`,
//! the agent's plan files in `~/.claude/`) is dropped.

use std::sync::LazyLock;

/// `path` relative to `cwd`, `/`-separated, or `None` when it lies outside
/// it. Relative paths are taken as relative to `cwd` already.
pub(crate) fn relative_to(path: &str, cwd: Option<&str>) -> Option<String> {
    let path = path.trim().replace('\\', "/");
    let rest = if is_absolute(&path) {
        let cwd = cwd?.trim().replace('\\', "/");
        let cwd = cwd.trim_end_matches('/');
        let rest = path.strip_prefix(cwd)?;
        rest.strip_prefix('/')?.to_string()
    } else {
        path
    };
    let rest = rest.trim_start_matches("./");
    let outside =
        rest.is_empty() || rest.starts_with('~') || rest.split('/').any(|part| part == "..");
    (!outside).then(|| rest.to_string())
}

/// Every path of `paths` that lies inside `cwd`, relative to it, each once,
/// in order.
pub(crate) fn relative_files(paths: &[String], cwd: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for rel in paths.iter().filter_map(|p| relative_to(p, cwd)) {
        if !out.contains(&rel) {
            out.push(rel);
        }
    }
    out
}

fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/') || (bytes.len() > 2 && bytes[1] == b':' && bytes[2] == b'/')
}

/// `text` with the session's working folder made relative (`<cwd>/src/a.rs`
/// becomes `src/a.rs`, `<cwd>` alone `.`) and any other home folder written
/// as `~` (`/Users/ann/notes.txt` becomes `~/notes.txt`).
pub(crate) fn scrub(text: &str, cwd: Option<&str>) -> String {
    static HOME: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?:/Users/|/home/|[A-Za-z]:[\\/]Users[\\/])[^/\\\s`'\x22)\]]+|/root\b")
            .expect("the home pattern compiles")
    });
    let mut out = text.to_string();
    if let Some(cwd) = cwd.map(|c| c.trim_end_matches(['/', '\\'])) {
        // Not `/`: it would take every slash.
        if cwd.len() > 1 {
            for sep in ['/', '\\'] {
                out = out.replace(&format!("{cwd}{sep}"), "");
            }
            out = out.replace(cwd, ".");
        }
    }
    HOME.replace_all(&out, "~").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_working_folder_become_relative_the_rest_is_dropped() {
        let cwd = Some("/Users/ann/src/app");
        assert_eq!(
            relative_to("/Users/ann/src/app/src/main.rs", cwd).as_deref(),
            Some("src/main.rs")
        );
        assert_eq!(
            relative_to("./src/lib.rs", cwd).as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(relative_to("/Users/ann/src/app-other/x.rs", cwd), None);
        assert_eq!(relative_to("/Users/ann/.claude/plans/p.md", cwd), None);
        assert_eq!(relative_to("/tmp/scratch.txt", cwd), None);
        assert_eq!(relative_to("../elsewhere/x.rs", cwd), None);
        assert_eq!(relative_to("/Users/ann/src/app/a.rs", None), None);
        assert_eq!(
            relative_to(r"C:\Users\ann\app\src\a.rs", Some(r"C:\Users\ann\app")).as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(
            relative_files(
                &[
                    "/Users/ann/src/app/a.rs".into(),
                    "a.rs".into(),
                    "/etc/x".into()
                ],
                cwd
            ),
            ["a.rs"]
        );
    }

    #[test]
    fn scrubbed_text_names_no_home_folder() {
        let cwd = Some("/Users/ann/src/app");
        assert_eq!(
            scrub(
                "edit /Users/ann/src/app/src/a.rs in /Users/ann/src/app, see /Users/ann/notes.txt and /home/bob/x",
                cwd
            ),
            "edit src/a.rs in ., see ~/notes.txt and ~/x"
        );
        assert_eq!(scrub(r"C:\Users\ann\app\x.rs", None), r"~\app\x.rs");
        assert_eq!(scrub("/root/.cargo/bin", None), "~/.cargo/bin");
        assert_eq!(scrub("nothing to see", cwd), "nothing to see");
    }
}
