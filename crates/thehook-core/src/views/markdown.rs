//! The lines around a citation, for the page to show a line in context.
//! Only a markdown file under the project's `.thehook/` is ever read: a
//! path that leaves it (`..`, an absolute path, a link pointing out) is
//! refused.

use std::path::{Component, Path};

use serde::Serialize;

use crate::error::{Error, IoContext, Result};
use crate::project::{Project, THEHOOK_DIR};

/// Lines of a file around one.
#[derive(Debug, Clone, Serialize)]
pub struct MarkdownLines {
    pub path: String,
    /// The line asked for.
    pub line: usize,
    /// The number of `lines[0]`.
    pub first: usize,
    pub lines: Vec<String>,
}

/// Lines `line - around ..= line + around` of `path` (relative to the
/// project, under `.thehook/`).
pub fn around(project: &Project, path: &str, line: usize, around: usize) -> Result<MarkdownLines> {
    let full = inside_memory(project, path)?;
    let text = std::fs::read_to_string(&full).at("cannot read", &full)?;
    let first = line.saturating_sub(around).max(1);
    let lines: Vec<String> = text
        .lines()
        .skip(first - 1)
        .take(line + around + 1 - first)
        .map(str::to_string)
        .collect();
    Ok(MarkdownLines {
        path: path.to_string(),
        line,
        first,
        lines,
    })
}

/// `path` as a file under the project's `.thehook/`, or why not.
pub fn inside_memory(project: &Project, path: &str) -> Result<std::path::PathBuf> {
    let refused = |why: &str| Error::Usage {
        problem: format!("`{path}` is not a memory file: {why}"),
        source: None,
        fix: "name a markdown file under .thehook/, as a citation does".into(),
    };
    let rel = Path::new(path);
    let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain || !path.starts_with(&format!("{THEHOOK_DIR}/")) {
        return Err(refused("it leaves .thehook/"));
    }
    if rel.extension().is_none_or(|e| e != "md") {
        return Err(refused("not a markdown file"));
    }
    let dir = project.dir();
    let full = project.root().join(rel);
    // A link inside .thehook/ may point anywhere: judged where it lands.
    let (Ok(real_dir), Ok(real)) = (dir.canonicalize(), full.canonicalize()) else {
        return Err(refused("no such file"));
    };
    if !real.starts_with(&real_dir) {
        return Err(refused("it leads out of .thehook/"));
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_markdown_under_thehook_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(dir.path().join(".thehook/knowledge")).unwrap();
        std::fs::write(
            dir.path().join(".thehook/knowledge/notes.md"),
            "# Notes\n\n- one\n- two\n- three\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("secret.md"), "key").unwrap();
        let lines = around(&project, ".thehook/knowledge/notes.md", 4, 1).unwrap();
        assert_eq!(
            (lines.first, lines.lines.clone()),
            (
                3,
                vec!["- one".to_string(), "- two".into(), "- three".into()]
            )
        );
        for bad in [
            "secret.md",
            ".thehook/../secret.md",
            "/etc/passwd",
            ".thehook/config.yaml",
            ".thehook/knowledge/missing.md",
        ] {
            assert!(inside_memory(&project, bad).is_err(), "{bad} was read");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                dir.path().join("secret.md"),
                dir.path().join(".thehook/knowledge/link.md"),
            )
            .unwrap();
            assert!(inside_memory(&project, ".thehook/knowledge/link.md").is_err());
        }
    }
}
