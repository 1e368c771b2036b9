//! CLI output as snapshots: exit code, stdout and stderr in one text, with
//! what changes from run to run (temp paths, the binary's path, times)
//! replaced by placeholders, as uv's `uv_snapshot!` does.

use super::Project;

impl Project {
    /// Runs `thehook args...` (with `stdin`, if any) and renders what it did.
    pub fn output_of(&self, args: &[&str], stdin: Option<&str>) -> String {
        let mut cmd = self.cmd(args);
        if let Some(stdin) = stdin {
            cmd.write_stdin(stdin);
        }
        let out = cmd.output().unwrap();
        format!(
            "exit: {}\n----- stdout -----\n{}\n----- stderr -----\n{}",
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        )
    }

    /// Regex → placeholder, most specific first: the home folder lies inside
    /// the project folder, which may be reached through a symlink (macOS
    /// `/var` → `/private/var`).
    pub fn filters(&self) -> Vec<(String, String)> {
        let root = self.root().to_path_buf();
        let mut paths = vec![
            (self.home(), "[HOME]"),
            (root.canonicalize().unwrap().join("home"), "[HOME]"),
            (assert_cmd::cargo::cargo_bin("thehook"), "[BIN]"),
            (root.canonicalize().unwrap(), "[PROJECT]"),
            (root, "[PROJECT]"),
        ];
        paths.dedup_by(|a, b| a.0 == b.0);
        let mut filters: Vec<(String, String)> = paths
            .into_iter()
            .map(|(p, to)| (regex::escape(&p.to_string_lossy()), to.to_string()))
            .collect();
        // A fact remembered today carries today's (local) date.
        let today = regex::escape(&jiff::Zoned::now().date().to_string());
        for (pattern, to) in [
            (
                r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
                "[TIME]",
            ),
            (&today, "[TODAY]"),
            (r"\b\d+(\.\d+)? ?(ms|s)\b", "[DURATION]"),
            // LMDB's file size depends on the platform's page size.
            (r"\b\d+ (B|KiB|MiB)\b", "[SIZE]"),
        ] {
            filters.push((pattern.to_string(), to.to_string()));
        }
        filters
    }
}

/// Snapshots what `thehook args...` did in `project`:
/// `thehook_snapshot!(p, ["recall", "auth"])`, or with stdin as a third argument.
macro_rules! thehook_snapshot {
    ($project:expr, $args:expr) => {
        thehook_snapshot!($project, $args, None)
    };
    ($project:expr, $args:expr, $stdin:expr) => {{
        let project = &$project;
        let output = project.output_of(&$args, $stdin);
        let filters = project.filters();
        let filters: Vec<(&str, &str)> =
            filters.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        insta::with_settings!({ filters => filters }, {
            insta::assert_snapshot!(output);
        });
    }};
}
pub(crate) use thehook_snapshot;
