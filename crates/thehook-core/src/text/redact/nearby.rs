//! Secrets that no format rule knows, found by what stands near them:
//!
//! - **in prose**: a random-looking token shortly after a word that says
//!   it is a secret (`the signing key is 9f8e…`, `password for staging:
//!   Xk29…`), where no `=` or `:` makes it an assignment;
//! - **pairing**: the partner of a cloud key id on the same line (an AWS
//!   secret key stated beside its `AKIA…` id, whatever the words around).
//!
//! "Random-looking" is entropy plus shape: hashes and ids that are not
//! secrets (git SHAs, UUIDs, lockfile integrity, digests) are kept unless
//! a secret word names them.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{entropy, Found};

/// How far before a token (in bytes, on its line) a secret word may stand.
const WINDOW: usize = 48;

static SECRET_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:secret|token|key|passw(?:or)?d|passphrase|pwd|credentials?|creds|signing|apikey)s?\b")
        .expect("the secret word pattern compiles")
});

/// Words that say a hash or id follows, not a secret (`sha256 of the key`).
static NOT_SECRET_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:sha(?:1|256|384|512)?|md5|hash|checksum|digest|integrity|commit|uuid|fingerprint|public)\b")
        .expect("the hash word pattern compiles")
});

static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/_~=.\-]{12,}").expect("the token pattern compiles"));

/// A cloud key id, or the marker gitleaks left in its place.
static CLOUD_KEY_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b|\bLTAI[A-Za-z0-9]{12,20}\b|\[REDACTED:(?:aws-access-token|alibaba-access-key-id)\]")
        .expect("the key id pattern compiles")
});

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        .expect("the uuid pattern compiles")
});

/// Names: camelCase, PascalCase or ACRONYMed words, each ending in at most
/// three digits, joined by `_`, `-` or `.` (`api_key_v2_prod`,
/// `Plug.CSRFProtection.get_csrf_token`, `claude-opus-4-5-20251101`).
/// A random token has digits inside its runs of letters.
static IDENTIFIER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Za-z][a-z]*(?:[A-Z]+[a-z]*)*\d{0,3}|\d{1,8})(?:[_.\-](?:[A-Za-z][a-z]*(?:[A-Z]+[a-z]*)*\d{0,3}|\d{1,8}))*$")
        .expect("the identifier pattern compiles")
});

/// A password said in prose or a config line without `=`: `password to
/// "…"` (its quotes perhaps escaped, in JSON), `password for the db is …`,
/// `password 19Cd…` (a .netrc line).
static SAID_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:password|passwd|passphrase|pwd)\b(?:\s+(?:is|to|of|for\s+\S+(?:\s+\S+)?\s+is))?\s*:?\s+\\?["'`]?(?P<value>[^\s"'`\\]{8,})"#)
        .expect("the said password pattern compiles")
});

/// Secrets in `text` found by the words before them or the key id beside them.
pub(super) fn find(text: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        find_in_line(line, offset, &mut found);
        offset += line.len();
    }
    found
}

fn find_in_line(line: &str, offset: usize, found: &mut Vec<Found>) {
    let paired = CLOUD_KEY_ID.is_match(line);
    let words: Vec<Range<usize>> = SECRET_WORD.find_iter(line).map(|m| m.range()).collect();
    if !paired && words.is_empty() {
        return;
    }
    for c in SAID_PASSWORD.captures_iter(line) {
        let value = c.name("value").expect("the pattern names a value");
        let v = value.as_str().trim_end_matches(['.', ',', ';']);
        let has_letter = v.chars().any(|c| c.is_ascii_alphabetic());
        let has_other = v
            .chars()
            .any(|c| c.is_ascii_digit() || "!@#$%^&*+=?~".contains(c));
        // A backslash is an escape in code (`comparison\n\treturn`).
        let code = v.contains('\\') || v.starts_with(['$', '<', '{', '%']);
        if has_letter && has_other && !code && !IDENTIFIER.is_match(v) {
            found.push(Found {
                span: offset + value.start()..offset + value.start() + v.len(),
                kind: "password",
            });
        }
    }
    for m in TOKEN.find_iter(line) {
        // Sentence punctuation is not part of a token.
        let token = m.as_str().trim_end_matches(['.', '-']);
        let span = m.start()..m.start() + token.len();
        if paired && is_partner_secret(token) {
            found.push(Found {
                span: offset + span.start..offset + span.end,
                kind: "cloud-secret-key",
            });
            continue;
        }
        let named = words
            .iter()
            .any(|w| w.end <= span.start && span.start - w.end <= WINDOW);
        // `the sha256 of the key file is …`: a hash word before the token
        // says what it is, wherever the secret word stands.
        let from = floor_char(line, span.start.saturating_sub(WINDOW + 16));
        let hashed = NOT_SECRET_WORD.is_match(&line[from..span.start]);
        if named && !hashed && looks_random(token) {
            found.push(Found {
                span: offset + span.start..offset + span.end,
                kind: "secret",
            });
        }
    }
}

fn floor_char(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// An AWS secret access key's shape: 40 characters of base64, mixed.
fn is_partner_secret(token: &str) -> bool {
    token.len() == 40
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '/' || c == '+')
        && token.chars().any(|c| c.is_ascii_lowercase())
        && token.chars().any(|c| c.is_ascii_uppercase())
        && entropy(token) > 4.0
}

/// Whether a token has the look of a key rather than of a word, a name, a
/// path, a number or an id.
fn looks_random(token: &str) -> bool {
    let inner_equals = token.trim_end_matches('=').contains('=');
    let name = token.split('/').all(|part| IDENTIFIER.is_match(part));
    if token.len() < 12 || inner_equals || UUID.is_match(token) || name {
        return false;
    }
    let path_like = token.starts_with(['/', '~', '.']) || token.contains("://");
    if path_like || (token.contains('/') && token.contains('.')) {
        return false;
    }
    let digits = token.chars().filter(char::is_ascii_digit).count();
    if digits == token.len() {
        return false;
    }
    let hex = token.chars().all(|c| c.is_ascii_hexdigit());
    if hex {
        return token.len() >= 32 && entropy(token) >= 3.0;
    }
    let mixed_case = token.chars().any(|c| c.is_ascii_lowercase())
        && token.chars().any(|c| c.is_ascii_uppercase());
    // A short password cannot reach the entropy of a long key: the bar is
    // most of what its length allows, at most gitleaks' 3.5.
    let bar = (0.85 * (token.len() as f64).log2()).min(3.5);
    (digits > 0 || mixed_case && token.len() >= 20) && entropy(token) >= bar
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(text: &str) -> Vec<&str> {
        find(text).into_iter().map(|f| &text[f.span]).collect()
    }

    #[test]
    fn a_token_named_a_secret_in_prose_is_found() {
        let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(
            secrets(&format!("the webhook signing key is {hex}.")),
            [hex]
        );
        assert_eq!(
            secrets("password for the staging db is Xk29dkq01pzQm7"),
            ["Xk29dkq01pzQm7"]
        );
    }

    #[test]
    fn hashes_ids_and_names_near_secret_words_are_kept() {
        for text in [
            "the sha256 of the key file is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "token refresh landed in commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
            "the key is session 5e41ef2f-689e-4d7d-b917-06ebc40107bc",
            "renamed the secret to api_key_v2_production_eu",
            "the token lives in process.env.GITHUB_TOKEN_FOR_CI",
            "key file at /home/user/.config/thehook/credentials.json",
            "the password field is passwordConfirmationInput",
        ] {
            assert_eq!(secrets(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn a_cloud_key_ids_partner_on_its_line_is_found_whatever_the_words() {
        let id = "AKIA2E0A8F3B244C9986";
        let partner = "wJalrXUtnFEMIK7MDENGbPxRfiCY8z2Lq0Vd9Ks3";
        let text = format!("use {id} with {partner} for the bucket");
        assert_eq!(secrets(&text), [partner]);
    }
}
