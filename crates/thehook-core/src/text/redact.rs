//! Secret redaction: every text that is sent to an LLM or written under
//! `.thehook/` goes through [`redact`] first. `<private>...</private>` spans
//! are dropped whole; then, each replacing what it finds by
//! `[REDACTED:<kind>]`:
//!
//! 1. [`gitleaks`]: every rule of gitleaks' maintained rule set (222 token
//!    formats and generic `key = value` with entropy), kinds named by rule id;
//! 2. [`nearby`]: a random-looking token a secret word names in prose, and
//!    the partner secret on a cloud key id's line;
//! 3. the rules below, for what gitleaks leaves to context: passwords in
//!    URLs, connection strings and CLI flags, truncated PEM blocks, and the
//!    values of `SECRET=` / `TOKEN=` / `PASSWORD=`-style assignments when
//!    they are literals rather than references or code.
//!
//! The patterns lean towards redacting: a lost secret cannot be taken back,
//! a redacted hash can. The over-redaction rate on ordinary code is measured
//! by the tests in `redact/tests.rs`.

mod gitleaks;
mod nearby;
#[doc(hidden)]
#[cfg(test)]
#[path = "../../tests/fixtures/redact/samples.rs"]
pub(crate) mod samples;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex, RegexSet};
use serde_json::Value;

/// What a pass of redaction found, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// `(kind, count)`, in the order the kinds were first found.
    pub kinds: Vec<(&'static str, usize)>,
}

impl Findings {
    fn add(&mut self, kind: &'static str) {
        match self.kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.kinds.push((kind, 1)),
        }
    }
    pub fn total(&self) -> usize {
        self.kinds.iter().map(|(_, n)| n).sum()
    }
}

/// How a rule's match is replaced.
enum Replace {
    /// The whole match.
    All,
    /// Capture group `value`, when [`looks_secret`] says so.
    ValueIfSecret,
}

struct Rule {
    kind: &'static str,
    pattern: &'static str,
    replace: Replace,
}

/// Assignment keys whose values are secrets (`API_KEY=`, `"password":`, ...).
const SECRET_KEY: &str = r"[A-Za-z0-9_.\-]*(?i:secret|token|passw(?:or)?d|api[_\-]?key|app[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|auth[_\-]?key|client[_\-]?secret|session[_\-]?key|signing[_\-]?key|encryption[_\-]?key)[A-Za-z0-9_.\-]*";

const RULES: &[Rule] = &[
    Rule {
        kind: "private-key",
        pattern: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        replace: Replace::All,
    },
    Rule {
        kind: "aws-access-key",
        pattern: r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
        replace: Replace::All,
    },
    Rule {
        kind: "github-token",
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        replace: Replace::All,
    },
    Rule {
        kind: "gitlab-token",
        pattern: r"\bgl(?:pat|ptt|dt|rt|cbt|soat|ft|imt|oas)-[A-Za-z0-9_\-]{20,}",
        replace: Replace::All,
    },
    Rule {
        kind: "anthropic-key",
        pattern: r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
        replace: Replace::All,
    },
    Rule {
        kind: "openai-key",
        pattern: r"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|[A-Za-z0-9]{32,})",
        replace: Replace::All,
    },
    Rule {
        kind: "slack-webhook",
        pattern: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
        replace: Replace::All,
    },
    Rule {
        kind: "discord-webhook",
        pattern: r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+",
        replace: Replace::All,
    },
    Rule {
        // mysql -u root -pSECRET: the password glued to the flag.
        kind: "password",
        pattern: r#"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?\s-p['"]?(?P<value>[^\s'"]{3,})"#,
        replace: Replace::ValueIfSecret,
    },
    Rule {
        // redis-cli -a, sshpass -p, sqlcmd -P, docker login -p: a password flag of a
        // known tool (elsewhere -p is a port and -a anything).
        kind: "password",
        pattern: r#"(?:\bredis-cli\b[^\n]*?\s(?:-a|--pass)|\bsshpass\s+-p|\bsqlcmd\b[^\n]*?\s-P|\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login\b[^\n]*?\s(?:-p|--password))[=\s]*['"]?(?P<value>[^\s'"]+)"#,
        replace: Replace::ValueIfSecret,
    },
    Rule {
        kind: "slack-token",
        pattern: r"\bxox[abposre]-[A-Za-z0-9\-]{10,}",
        replace: Replace::All,
    },
    Rule {
        kind: "stripe-key",
        pattern: r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
        replace: Replace::All,
    },
    Rule {
        kind: "google-api-key",
        pattern: r"\bAIza[0-9A-Za-z_\-]{35}",
        replace: Replace::All,
    },
    Rule {
        kind: "npm-token",
        pattern: r"\bnpm_[A-Za-z0-9]{36}\b",
        replace: Replace::All,
    },
    Rule {
        kind: "jwt",
        pattern: r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
        replace: Replace::All,
    },
    Rule {
        // scheme://user:password@host
        kind: "url-password",
        pattern: r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@'`]*:(?P<value>[^\s@/'`]+)@",
        replace: Replace::ValueIfSecret,
    },
    Rule {
        // Server=...;Password=...; (the first field is an assignment below)
        kind: "password",
        pattern: r"(?i);\s*(?:password|pwd)\s*=\s*(?P<value>[^;'`\s]+)",
        replace: Replace::ValueIfSecret,
    },
    Rule {
        kind: "token",
        pattern: r"(?i)\b(?:authorization\s*[:=]\s*[A-Za-z]+\s+|bearer\s+)(?P<value>[A-Za-z0-9_\-.=+/~]{16,})",
        replace: Replace::ValueIfSecret,
    },
    Rule {
        kind: "secret",
        pattern: r"(?i)(?:^|\s)--?(?:password|passwd|token|secret|api-key|apikey|auth-token)[= ](?P<value>[^\s'`]+)",
        replace: Replace::ValueIfSecret,
    },
];

/// `KEY=value`, `"key": "value"`, `key: value`: the value, quoted or not.
/// Quotes may be escaped (`{\"token\": \"...\"}`): JSON that was
/// serialised into a string, as in an agent's API error event.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"(?P<key>{SECRET_KEY})\\?["']?\s*(?:=|:)\s*(?:\\?"(?P<dq>(?:[^"\\\n]|\\[^"\n])*)\\?"|\\?'(?P<sq>(?:[^'\\\n]|\\[^'\n])*)\\?'|(?P<bare>[^\s"'`,;(){{}}\]\\]+))"#
    ))
    .expect("the assignment pattern compiles")
});

static COMPILED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|r| Regex::new(r.pattern).expect("redaction patterns compile"))
        .collect()
});

/// One pass over all patterns tells which rules can match at all.
static SET: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(RULES.iter().map(|r| r.pattern)).expect("redaction patterns compile")
});

/// Code, not a value: `getToken(req)`, `os.getenv("X")`.
static CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_$][\w.$]*\(").expect("the call pattern compiles"));

static PRIVATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)<private>.*?(?:</private>|\z)").expect("the private pattern compiles")
});

fn marker(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// A secret a detector found: where it is in the text, and its kind.
struct Found {
    span: std::ops::Range<usize>,
    kind: &'static str,
}

/// `text` with each found secret replaced by its kind's marker (overlapping
/// ones as one, named by the first); `None` when there is none.
fn replace_spans(text: &str, mut spans: Vec<Found>, found: &mut Findings) -> Option<String> {
    if spans.is_empty() {
        return None;
    }
    spans.sort_by_key(|f| (f.span.start, std::cmp::Reverse(f.span.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for Found { span, kind } in spans {
        if span.start < at {
            // Inside (or across) the span just replaced.
            if span.end > at {
                at = span.end;
            }
            continue;
        }
        out.push_str(&text[at..span.start]);
        out.push_str(&marker(kind));
        found.add(kind);
        at = span.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// `text` with secrets replaced and `<private>` spans dropped.
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    redact_counting(text, &mut Findings::default())
}

/// Like [`redact`], adding what it replaced to `found`.
pub(crate) fn redact_counting<'a>(text: &'a str, found: &mut Findings) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    if out.contains("<private>") || out.contains("<PRIVATE>") {
        let dropped = PRIVATE.replace_all(&out, |_: &Captures| {
            found.add("private");
            ""
        });
        out = Cow::Owned(dropped.into_owned());
    }
    // The maintained rules first, so that a token is named by its format.
    if let Some(replaced) = replace_spans(&out, gitleaks::RULES.find(&out), found) {
        out = Cow::Owned(replaced);
    }
    if let Some(replaced) = replace_spans(&out, nearby::find(&out), found) {
        out = Cow::Owned(replaced);
    }
    for i in SET.matches(&out).into_iter().collect::<Vec<_>>() {
        let rule = &RULES[i];
        let replaced = COMPILED[i].replace_all(&out, |c: &Captures| replace(rule, c, found));
        if let Cow::Owned(s) = replaced {
            out = Cow::Owned(s);
        }
    }
    let replaced = ASSIGNMENT.replace_all(&out, |c: &Captures| assignment(c, found));
    if let Cow::Owned(s) = replaced {
        out = Cow::Owned(s);
    }
    out
}

fn replace(rule: &Rule, c: &Captures, found: &mut Findings) -> String {
    let whole = c.get(0).expect("group 0 always matches");
    let value = match rule.replace {
        Replace::All => {
            found.add(rule.kind);
            return marker(rule.kind);
        }
        Replace::ValueIfSecret => c.name("value").expect("rules name a value"),
    };
    if !looks_secret(value.as_str(), true) {
        return whole.as_str().to_string();
    }
    found.add(rule.kind);
    let s = whole.as_str();
    let (start, end) = (value.start() - whole.start(), value.end() - whole.start());
    format!("{}{}{}", &s[..start], marker(rule.kind), &s[end..])
}

/// Redacts the value of a secret-looking assignment unless it is a
/// reference, a placeholder or code.
fn assignment(c: &Captures, found: &mut Findings) -> String {
    let whole = c.get(0).expect("group 0 always matches");
    let key = c.name("key").map_or("", |k| k.as_str());
    let lower = key.to_ascii_lowercase();
    // Counters and tokenizers are not secrets: max_tokens=4096, tokenizer=...
    if lower.ends_with("tokens") || lower.contains("tokeniz") || lower.ends_with("_count") {
        return whole.as_str().to_string();
    }
    let (value, quoted) = match (c.name("dq"), c.name("sq"), c.name("bare")) {
        (Some(v), _, _) | (_, Some(v), _) => (v, true),
        (_, _, Some(v)) => (v, false),
        _ => return whole.as_str().to_string(),
    };
    // KEY=value in a .env file or a shell: every literal counts.
    let env_style = key
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !looks_secret(value.as_str(), quoted || env_style) {
        return whole.as_str().to_string();
    }
    let kind = if lower.contains("pass") {
        "password"
    } else if lower.contains("token") {
        "token"
    } else {
        "secret"
    };
    found.add(kind);
    let s = whole.as_str();
    let (start, end) = (value.start() - whole.start(), value.end() - whole.start());
    format!("{}{}{}", &s[..start], marker(kind), &s[end..])
}

/// Whether `value`, found where a secret goes, is one. References
/// (`$VAR`, `${...}`, `process.env.X`), placeholders (`<token>`, `xxx`,
/// `***`), numbers, and code (calls, plain identifiers) are not. A `literal`
/// (quoted, or in an env file) needs only to be a non-trivial string;
/// anything else must look random.
fn looks_secret(value: &str, literal: bool) -> bool {
    let v = value.trim();
    if v.len() < 4 || v.to_ascii_uppercase().starts_with("[REDACTED") {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    let reference = [
        "$",
        "%",
        "<",
        "{{",
        "{",
        "process.env",
        "os.environ",
        "env.",
        "env(",
    ];
    if reference.iter().any(|p| lower.starts_with(p)) || CALL.is_match(v) {
        return false;
    }
    const PLACEHOLDERS: &[&str] = &[
        "null",
        "none",
        "true",
        "false",
        "undefined",
        "string",
        "str",
        "number",
        "bool",
        "boolean",
        "required",
        "optional",
        "redacted",
        "secret",
        "password",
        "token",
        "example",
        "changeme",
        "your",
        "placeholder",
        "dummy",
        "xxx",
        "***",
        "...",
        "•••",
    ];
    if PLACEHOLDERS
        .iter()
        .any(|p| lower == *p || lower.starts_with(p) && !literal)
        || v.chars()
            .all(|c| matches!(c, 'x' | 'X' | '*' | '.' | '•' | '-' | '_'))
        || v.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        return false;
    }
    if literal {
        return true;
    }
    // Unquoted in code: `token = response.token` or `password: string` is
    // code; `token: a8f3k29dk3...` is a secret.
    let identifier = v.chars().all(|c| {
        c.is_ascii_alphabetic()
            || matches!(c, '_' | '.' | ':' | '-' | '&' | '*' | '<' | '>' | '[' | ']')
    });
    if identifier {
        return false;
    }
    v.len() >= 8 && (entropy(v) >= 3.0 || v.chars().any(|c| c.is_ascii_digit()))
}

/// Shannon entropy in bits per character.
pub(crate) fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

/// Redacts every string inside a JSON value (keys stay: they are field
/// names, not data). Returns what was found.
pub(crate) fn redact_json(value: &mut Value, found: &mut Findings) {
    match value {
        Value::String(s) => redact_string(s, found),
        Value::Array(items) => items.iter_mut().for_each(|v| redact_json(v, found)),
        Value::Object(map) => {
            map.values_mut().for_each(|v| redact_json(v, found));
            // A key can hold a secret too (a token used as a map key).
            if map.keys().any(|k| matches!(redact(k), Cow::Owned(_))) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (redact_counting(&k, found).into_owned(), v))
                    .collect();
            }
        }
        _ => {}
    }
}

/// Redacts a JSONL file's bytes line by line, keeping every line valid
/// JSON; a line that is not JSON is redacted as text.
pub(crate) fn redact_jsonl(bytes: &[u8], found: &mut Findings) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        match serde_json::from_str::<Value>(body) {
            Ok(mut v) if body.trim_start().starts_with(['{', '[']) => {
                redact_json(&mut v, found);
                out.push_str(&v.to_string());
            }
            _ => out.push_str(&redact_counting(body, found)),
        }
        out.push_str(newline);
    }
    out
}

/// Redacts `s` in place.
pub(crate) fn redact_string(s: &mut String, found: &mut Findings) {
    if let Cow::Owned(r) = redact_counting(s, found) {
        *s = r;
    }
}
