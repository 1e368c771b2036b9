//! Real `git` for the unit tests: an identity, and no user or system config.

use std::path::Path;
use std::process::Command;

/// Runs git in `root` and asserts it succeeded.
pub(crate) fn git(root: &Path, args: &[&str]) {
    git_as(root, "t", None, args);
}

/// [`git`] with `who` (`who@example.com`) as author and committer, and
/// with `day` (`YYYY-MM-DD`) as the dates when given.
pub(crate) fn git_as(root: &Path, who: &str, day: Option<&str>, args: &[&str]) {
    let mut git = Command::new("git");
    git.arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", who)
        .env("GIT_AUTHOR_EMAIL", format!("{who}@example.com"))
        .env("GIT_COMMITTER_NAME", who)
        .env("GIT_COMMITTER_EMAIL", format!("{who}@example.com"));
    if let Some(day) = day {
        let date = format!("{day}T12:00:00Z");
        git.env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date);
    }
    assert!(git.status().unwrap().success(), "git {args:?}");
}
