//! Real `git` for the tests: an identity, and no user or system config.

use std::path::Path;
use std::process::Command;

/// Runs git in `dir` and returns (success, stdout + stderr).
pub fn git_in(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Runs git in `dir`, asserts it succeeded, and returns its output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let (ok, text) = git_in(dir, args);
    assert!(ok, "git {args:?} failed in {}:\n{text}", dir.display());
    text
}
