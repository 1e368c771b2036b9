//! A line from someone the project does not trust, read for what no
//! pattern of an action lists: the words of a request vary without end,
//! what it must name does not. Such a line is given to agents only when
//! everything it names that points at the machine or outside (a host, an
//! address, a package-like name, a dotted setting, a flag, a variable of
//! the environment, a path) is something the repository holds, and it says
//! nothing of moving a secret or loosening a control. A trusted author's
//! line, or this machine's, is not read this way ([`super::verify`]).

use std::sync::LazyLock;

use regex::Regex;

use super::actions::{in_code, negated_before};
use super::corroborate::RepoFacts;

/// Why a stranger's line is not given, if it is not: what it names that
/// the repository does not hold, or what it says of a secret or a control.
pub(crate) fn concern(text: &str, facts: &RepoFacts) -> Option<String> {
    let unknown: Vec<String> = names(text)
        .into_iter()
        .filter(|(at, n)| !negated_before(text, *at) && !facts.knows(n))
        .map(|(_, n)| n)
        .take(3)
        .collect();
    if !unknown.is_empty() {
        let list: Vec<String> = unknown.iter().map(|n| format!("`{n}`")).collect();
        return Some(format!(
            "names {}, which no file of the project holds",
            list.join(", ")
        ));
    }
    let said = |pattern: &Regex| {
        pattern
            .find_iter(text)
            .find(|m| !negated_before(text, m.start()))
    };
    if let Some(m) = said(&SECRET_SINK) {
        return Some(format!(
            "speaks of a secret and where it goes (\"{}\")",
            clip(m.as_str())
        ));
    }
    if let Some(m) = said(&LOOSENED) {
        return Some(format!(
            "speaks of loosening a control (\"{}\")",
            clip(m.as_str())
        ));
    }
    None
}

/// Whether [`concern`] may find something in `text`, without the
/// repository: what it names, or a secret or a control it speaks of.
pub(crate) fn may_concern(text: &str) -> bool {
    !names(text).is_empty() || SECRET_SINK.is_match(text) || LOOSENED.is_match(text)
}

fn clip(text: &str) -> String {
    crate::text::clip_chars(text.trim(), 60)
}

/// Hosts and addresses, with or without a scheme.
static HOST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:https?://)?((?:\d{1,3}\.){3}\d{1,3}|(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|co|cloud|ai|xyz|site|tech|biz|us|uk|de|ly|gg|cc))\b")
        .expect("a valid pattern")
});

/// A module or a download by its path on a host: `github.com/acme/gen`.
static HOSTED_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:[a-z0-9-]+\.)+[a-z]{2,}/[\w.-]+(?:/[\w.-]+)*").expect("a valid pattern")
});

/// A scoped package: `@acme/test-harness`.
static SCOPED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"@[a-z0-9][\w.-]*/[a-z0-9][\w.-]*").expect("a valid pattern"));

/// Names joined by hyphens: `tsup-plugin-node-polyfills`, `golangci-lint`.
static HYPHENATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)+(?:\.[A-Za-z0-9]+)*\b").expect("a valid pattern")
});

/// Words before a name that make it a thing to fetch or use.
static PACKAGE_CUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(install\w*|add\w*|plugin|package|dependency|library|module|fork|shim|pull\w* in)\s+(?:\S+\s+)?$")
        .expect("a valid pattern")
});

/// What `text` names that points at the machine or outside, with the
/// byte each starts at (a prohibition before it names it to forbid it):
/// hosts and addresses, paths on a host, scoped packages, and names joined
/// by hyphens that read as a package (in code, made of three parts or
/// more, with a digit, or after a word such as "install" or "with").
/// Identifiers of the code, dotted settings, flags and variables are left
/// to the patterns of actions: a convention is made of them.
fn names(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    fn push(out: &mut Vec<(usize, String)>, at: usize, name: &str) {
        if !name.is_empty() && !out.iter().any(|(_, n)| n == name) {
            out.push((at, name.to_string()));
        }
    }
    for m in HOSTED_PATH.find_iter(text) {
        push(&mut out, m.start(), m.as_str().trim_end_matches(['.', '/']));
    }
    for c in HOST.captures_iter(text) {
        let host = c.get(1).expect("a host");
        // A host whose path is named already is named by it.
        if !out.iter().any(|(_, n)| n.starts_with(host.as_str())) {
            push(&mut out, host.start(), host.as_str());
        }
    }
    for m in SCOPED.find_iter(text) {
        push(&mut out, m.start(), m.as_str());
    }
    for m in HYPHENATED.find_iter(text) {
        let word = m.as_str();
        // Part of a larger name: a flag (`--upgrade-package`), an image's
        // tag (`python:3.12-slim`), a path or a setting.
        let before = text[..m.start()].chars().next_back();
        if before.is_some_and(|c| matches!(c, '-' | ':' | '.' | '/' | '@' | '=')) {
            continue;
        }
        let parts: Vec<&str> = word.split('-').collect();
        let lower = word.to_ascii_lowercase();
        let prose = parts
            .iter()
            .all(|p| COMMON.contains(&p.to_ascii_lowercase().as_str()));
        let package_like = in_code(text, m.start())
            || (parts.len() >= 3 && !prose)
            || word.chars().any(|c| c.is_ascii_digit())
            || PACKAGE_CUE.is_match(&text[..m.start()]);
        if package_like && !prose && !is_version(word) && !lower.starts_with("pre-commit") {
            push(&mut out, m.start(), word);
        }
    }
    out
}

/// Parts of English compounds that a package name seldom is made of alone.
const COMMON: &[&str] = &[
    "a", "all", "and", "based", "blocking", "built", "by", "date", "day", "end", "first", "free",
    "friendly", "full", "go", "hand", "high", "in", "known", "level", "line", "long", "low",
    "made", "minute", "new", "non", "off", "old", "on", "one", "only", "opt", "out", "party",
    "per", "pre", "read", "real", "right", "run", "running", "safe", "self", "side", "term",
    "third", "time", "to", "top", "two", "up", "use", "well", "wide", "word", "write", "call",
    "check", "the", "of", "box", "case", "way",
];

fn is_version(word: &str) -> bool {
    let w = word.trim_start_matches(['v', 'V']);
    w.split(['.', '-'])
        .all(|p| p.chars().all(|c| c.is_ascii_digit()))
}

/// A secret and where it goes, in one line.
static SECRET_SINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(tokens?|secrets?|api[ _-]?keys?|passwords?|credentials?|private keys?|kubeconfig|connection strings?|dsn|[A-Z][A-Z0-9_]*_(?:TOKEN|SECRET|KEY|PASSWORD|DSN))\b[^.\n]{0,80}\b(issues?|pull requests?|pr|description|comments?|slack|chat|channel|discord|teams|email|mail|logs?|logged|output|stdout|url|query|committed|commit|repo|repository|gist|paste\w*|share\w*|send\w*|post\w*|upload\w*|print\w*|echo\w*)\b|\b(issues?|slack|chat|channel|logs?|print\w*|echo\w*|share\w*|send\w*|post\w*|paste\w*|commit\w*|upload\w*|include\w*)\b[^.\n]{0,80}\b(tokens?|secrets?|api[ _-]?keys?|passwords?|credentials?|private keys?|kubeconfig|connection strings?|dsn|[A-Z][A-Z0-9_]*_(?:TOKEN|SECRET|KEY|PASSWORD|DSN))\b")
        .expect("a valid pattern")
});

/// A control and its loosening, in one line.
static LOOSENED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(tls|ssl|certificates?|cert|verif\w*|audit\w*|scan\w*|vuln\w*|permissions?|roles?|rbac|clusterrole|hooks?|signatures?|signing|checksums?|sandbox\w*|firewall|sudo)\b[^.\n]{0,80}\b(off|false|disabl\w*|skip\w*|remov\w*|delet\w*|drop\w*|widen\w*|all verbs|wildcard|informational|advisory|non-blocking|continue-on-error|ignor\w*|bypass\w*|optional|allow_failure|insecure|777|no-verify)\b|\b(disabl\w*|skip\w*|remov\w*|delet\w*|drop\w*|widen\w*|bypass\w*|ignor\w*|turn\w* off)\b[^.\n]{0,80}\b(tls|ssl|certificates?|verif\w*|audit\w*|scan\w*|vuln\w*|permissions?|roles?|rbac|hooks?|signatures?|checksums?|sandbox\w*)\b")
        .expect("a valid pattern")
});
