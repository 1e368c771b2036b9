//! gitleaks' rule set, the maintained public reference for secret formats:
//! `gitleaks.toml` beside this file is `config/gitleaks.toml` of
//! github.com/gitleaks/gitleaks at b58d3f1 (2026-07-22, MIT, see
//! `gitleaks.LICENSE`), unedited, so that updating it is copying the
//! file again. No crate or registry package ships the file on its own; the
//! scanners that embed it do so inside much larger programs.
//!
//! The rules are applied as gitleaks applies them: a rule runs only when
//! one of its keywords is in the text (one Aho-Corasick pass finds which),
//! its secret is its `secretGroup` or its first non-empty group, a secret
//! at or below the rule's entropy is skipped, and the global and the rule's
//! allowlists (regexes on the secret, the match or the line; stopwords) let
//! placeholders through. Allowlists by path or commit never apply to text.
//! Each rule's regex is compiled the first time its keywords appear, as
//! gitleaks (Go) reads it: `\w`, `\d`, `\s` and `\b` are ASCII. Unicode
//! classes would make the rules' `[\w.-]{0,50}` many times larger and slow
//! to compile; so the regexes match bytes, and a match is widened to whole
//! characters.

use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, MatchKind};
use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;

use super::{entropy, Found};

const CONFIG: &str = include_str!("gitleaks.toml");

#[derive(Deserialize)]
struct ConfigFile {
    allowlist: Option<AllowlistFile>,
    rules: Vec<RuleFile>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleFile {
    id: String,
    regex: Option<String>,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allowlists: Vec<AllowlistFile>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AllowlistFile {
    #[serde(default)]
    regexes: Vec<String>,
    regex_target: Option<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    condition: Option<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
}

/// What an allowlist's regexes are matched against.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    Secret,
    Match,
    Line,
}

struct Allowlist {
    regexes: Vec<Regex>,
    target: Target,
    stopwords: Vec<String>,
}

pub(super) struct Rule {
    pub(super) id: String,
    source: String,
    regex: OnceLock<Option<Regex>>,
    secret_group: usize,
    entropy: f64,
    allowlists: Vec<Allowlist>,
}

pub(super) struct Rules {
    pub(super) rules: Vec<Rule>,
    keywords: AhoCorasick,
    /// For each keyword pattern, the rules it wakes.
    woken: Vec<Vec<usize>>,
    /// Rules without keywords: always run.
    always: Vec<usize>,
    global: Vec<Allowlist>,
}

pub(super) static RULES: LazyLock<Rules> = LazyLock::new(|| {
    let file: ConfigFile =
        toml_edit::de::from_str(CONFIG).expect("the vendored gitleaks.toml parses");
    Rules::new(file)
});

fn compile(pattern: &str) -> Option<Regex> {
    // Some rules repeat large classes many times; the default size limit
    // is made for typical patterns, not these.
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(64 << 20)
        .build()
        .ok()
}

impl Allowlist {
    /// `None` for an allowlist that can never apply to text: one that needs
    /// a path or a commit as well (`condition = "AND"`), or only names those.
    fn from_file(a: AllowlistFile) -> Option<Allowlist> {
        let needs_more =
            a.condition.as_deref() == Some("AND") && !(a.paths.is_empty() && a.commits.is_empty());
        if needs_more || (a.regexes.is_empty() && a.stopwords.is_empty()) {
            return None;
        }
        let target = match a.regex_target.as_deref() {
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            _ => Target::Secret,
        };
        Some(Allowlist {
            regexes: a.regexes.iter().filter_map(|r| compile(r)).collect(),
            target,
            stopwords: a.stopwords.iter().map(|s| s.to_lowercase()).collect(),
        })
    }

    fn allows(&self, secret: &str, matched: &str, line: &str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => matched,
            Target::Line => line,
        };
        if self.regexes.iter().any(|r| r.is_match(target.as_bytes())) {
            return true;
        }
        let lower = secret.to_lowercase();
        self.stopwords.iter().any(|w| lower.contains(w.as_str()))
    }
}

impl Rules {
    fn new(file: ConfigFile) -> Rules {
        let global = file
            .allowlist
            .into_iter()
            .filter_map(Allowlist::from_file)
            .collect();
        let mut keywords: Vec<String> = Vec::new();
        let mut woken: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let mut rules = Vec::new();
        // Rules that match on a file's path alone have no regex.
        for rule in file.rules.into_iter().filter(|r| r.regex.is_some()) {
            let index = rules.len();
            if rule.keywords.is_empty() {
                always.push(index);
            }
            for keyword in &rule.keywords {
                let keyword = keyword.to_lowercase();
                match keywords.iter().position(|k| *k == keyword) {
                    Some(at) => woken[at].push(index),
                    None => {
                        keywords.push(keyword);
                        woken.push(vec![index]);
                    }
                }
            }
            rules.push(Rule {
                id: rule.id,
                source: rule.regex.expect("filtered above"),
                regex: OnceLock::new(),
                secret_group: rule.secret_group.unwrap_or(0),
                entropy: rule.entropy.unwrap_or(0.0),
                allowlists: rule
                    .allowlists
                    .into_iter()
                    .filter_map(Allowlist::from_file)
                    .collect(),
            });
        }
        let keywords = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&keywords)
            .expect("the keywords build an automaton");
        Rules {
            rules,
            keywords,
            woken,
            always,
            global,
        }
    }

    /// The rules whose keywords are in `text`, in the file's order.
    fn woken_by(&self, text: &str) -> Vec<usize> {
        let mut picked = vec![false; self.rules.len()];
        for i in &self.always {
            picked[*i] = true;
        }
        for m in self.keywords.find_overlapping_iter(text) {
            for i in &self.woken[m.pattern().as_usize()] {
                picked[*i] = true;
            }
        }
        (0..self.rules.len()).filter(|i| picked[*i]).collect()
    }

    /// Every secret the rules find in `text`.
    pub(super) fn find(&'static self, text: &str) -> Vec<Found> {
        let mut found = Vec::new();
        for i in self.woken_by(text) {
            let rule = &self.rules[i];
            let Some(regex) = rule.regex() else { continue };
            for c in regex.captures_iter(text.as_bytes()) {
                let whole = c.get(0).expect("group 0 always matches").range();
                let secret = match rule.secret_group {
                    0 => (1..c.len()).find_map(|g| c.get(g).filter(|m| !m.is_empty())),
                    g => c.get(g),
                }
                .map_or(whole.clone(), |m| m.range());
                // A short first group is a part of the format (Teams'
                // webhook URL), not the secret: redact all of the match.
                let secret = if rule.secret_group == 0 && secret.len() < 12 {
                    whole.clone()
                } else {
                    secret
                };
                let (whole, secret) = (chars(text, whole), chars(text, secret));
                let value = text[secret.clone()].trim_matches('\n');
                if value.is_empty() || (rule.entropy > 0.0 && entropy(value) <= rule.entropy) {
                    continue;
                }
                let line = line_around(text, whole.clone());
                let allowed = self
                    .global
                    .iter()
                    .chain(&rule.allowlists)
                    .any(|a| a.allows(value, &text[whole.clone()], line));
                if !allowed {
                    found.push(Found {
                        span: secret,
                        kind: rule.id.as_str(),
                    });
                }
            }
        }
        found
    }
}

impl Rule {
    /// The compiled regex; `None` for one the regex crate cannot compile
    /// (the tests check there is none).
    pub(super) fn regex(&self) -> Option<&Regex> {
        self.regex.get_or_init(|| compile(&self.source)).as_ref()
    }
}

/// `span` widened to whole characters.
fn chars(text: &str, span: Range<usize>) -> Range<usize> {
    let mut start = span.start;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end;
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The line(s) `span` is on.
fn line_around(text: &str, span: Range<usize>) -> &str {
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i);
    &text[start..end]
}
