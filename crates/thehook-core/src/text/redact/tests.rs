use super::samples::{samples, Sample};
use super::*;

/// The planted corpus (`samples.rs`): every kind and phrasing, none may
/// survive, not even a part of 8 characters or more.
#[test]
fn no_planted_secret_survives() {
    let samples = samples();
    let mut leaks = Vec::new();
    for Sample { kind, text, secret } in &samples {
        let mut found = Findings::default();
        let out = redact_counting(text, &mut found);
        let partly = secret
            .as_bytes()
            .windows(12.min(secret.len()))
            .any(|w| out.as_bytes().windows(w.len()).any(|o| o == w));
        if partly || found.total() == 0 || !out.contains("[REDACTED:") {
            leaks.push(format!("{kind}: {out}"));
        }
    }
    let kinds: std::collections::HashSet<&str> = samples.iter().map(|s| s.kind).collect();
    eprintln!(
        "{} planted secrets of {} kinds, {} leaked",
        samples.len(),
        kinds.len(),
        leaks.len()
    );
    assert!(kinds.len() >= 60, "only {} kinds", kinds.len());
    assert!(
        leaks.is_empty(),
        "{} leaked:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

/// Every rule of the vendored gitleaks set compiles with the regex crate
/// (a rule that did not would silently never redact).
#[test]
fn every_gitleaks_rule_compiles() {
    let rules = &gitleaks::RULES.rules;
    assert!(rules.len() >= 200, "{} rules", rules.len());
    let broken: Vec<&str> = rules
        .iter()
        .filter(|r| r.regex().is_none())
        .map(|r| r.id.as_str())
        .collect();
    assert!(broken.is_empty(), "rules that do not compile: {broken:?}");
}

#[test]
fn the_text_around_a_secret_is_kept() {
    let text = &samples()[13].text;
    assert_eq!(
        redact(text),
        "DATABASE_URL=postgres://app:[REDACTED:url-password]@db:5432/app"
    );
    assert_eq!(
        redact("the signing key is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, keep it"),
        "the signing key is [REDACTED:secret], keep it"
    );
    assert_eq!(
        redact("Server=db;User Id=sa;Password=Xk29dkq01pz;Encrypt=true"),
        "Server=db;User Id=sa;Password=[REDACTED:password];Encrypt=true"
    );
}

#[test]
fn json_serialised_into_a_string_is_redacted_too() {
    let (text, secret) = (&samples()[17].text, &samples()[17].secret);
    let escaped = serde_json::to_string(text).unwrap();
    let out = redact(&escaped);
    assert!(!out.contains(secret.as_str()), "{out}");
    assert_eq!(out, r#""{\"refresh_token\": \"[REDACTED:token]\"}""#);
    // A backslash inside a value does not end it.
    assert_eq!(
        redact(r#"password = "ab\cd-ef""#),
        r#"password = "[REDACTED:password]""#
    );
}

#[test]
fn private_spans_are_dropped_even_when_unclosed() {
    assert_eq!(
        redact("keep <private>my home address</private> this"),
        "keep  this"
    );
    assert_eq!(redact("a <PRIVATE>b\nc</PRIVATE> d"), "a  d");
    assert_eq!(redact("head <private>never closed"), "head ");
}

#[test]
fn a_pem_key_cut_off_before_its_end_is_still_dropped() {
    let out = redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA");
    assert_eq!(out, "[REDACTED:private-key]");
}

/// Ordinary code that has the look of a secret, or sits where one would.
/// None of it may be touched.
const ORDINARY: &[&str] = &[
    // lockfiles
    r#""integrity": "sha512-Wm4F9lQnC3Vc9f1sV1kR0m5eQb0mB8dG6m3n2Q0n1b7HkS0tqXo0a2m0F4n9g9s7yV7c3l0l2WmX3b1uQ2xB5w==","#,
    r#"checksum = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90""#,
    "resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c\"",
    // ids and hashes
    "session 5e41ef2f-689e-4d7d-b917-06ebc40107bc resumed",
    "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256: 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    // code where secrets would go, holding none
    "const token = await getToken(req);",
    "token = response.json()[\"token\"]",
    "password: string;",
    "let api_key = std::env::var(\"API_KEY\")?;",
    "DB_PASSWORD=${DB_PASSWORD}",
    "API_KEY=$API_KEY",
    "SECRET_KEY=<your secret key>",
    "max_tokens=4096",
    "\"input_tokens\": 1532,",
    "tokenizer = AutoTokenizer.from_pretrained(model)",
    "password = os.environ[\"PASSWORD\"]",
    "if (!token) throw new Error('missing token');",
    "url = \"postgres://localhost:5432/app\"",
    "git clone https://github.com/rust-lang/cargo.git",
    "fn verify_token(token: &str) -> bool {",
    "secret: Option<String>,",
    "access_token: ctx.session.accessToken,",
    "const { password, ...rest } = user;",
    "scikit-learn sk-learn-compatible-estimators-for-teams",
    "task-0123456789abcdef0123456789abcdef",
    "Authorization: Bearer ${TOKEN}",
    "http://user@example.com/path",
    "PWD=/home/dev/project",
    "export PATH=/usr/local/bin:$PATH",
];

#[test]
fn ordinary_code_is_not_redacted() {
    let mut touched = Vec::new();
    let planted_ordinary = super::samples::ordinary();
    for line in ORDINARY
        .iter()
        .copied()
        .chain(planted_ordinary.iter().map(|l| l.as_ref()))
    {
        let mut found = Findings::default();
        let out = redact_counting(line, &mut found);
        if out != *line {
            touched.push(format!("{line}\n  -> {out}"));
        }
    }
    assert!(
        touched.is_empty(),
        "{} of {} ordinary lines were redacted:\n{}",
        touched.len(),
        ORDINARY.len() + planted_ordinary.len(),
        touched.join("\n")
    );
}

#[test]
fn jsonl_stays_valid_json_line_by_line() {
    let Sample { text, secret, .. } = &samples()[15];
    let line = serde_json::json!({"type": "user", "message": {"content": text}}).to_string();
    let input = format!("{line}\nnot json: JWT_SECRET={secret}\n{line}");
    let mut found = Findings::default();
    let out = redact_jsonl(input.as_bytes(), &mut found);
    assert!(!out.contains(secret.as_str()));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    for i in [0, 2] {
        let v: Value = serde_json::from_str(lines[i]).expect("still JSON");
        assert_eq!(
            v["message"]["content"],
            "JWT_SECRET=[REDACTED:generic-api-key]"
        );
    }
    assert_eq!(found.total(), 3);
}

#[test]
fn entropy_tells_random_from_words() {
    assert!(entropy("aB3dE5fG7hJ9kL2mN4pQ") > 4.0);
    assert!(entropy("aaaaaaaa") < 0.1);
}

/// Every redaction in the real transcripts (which hold no planted secret):
/// each one is either a real secret-shaped string or over-redaction. The
/// list is printed (`--nocapture`) for the rate docs/redaction.md reports; the
/// test fails when it grows past what was reviewed.
#[test]
fn redactions_in_real_transcripts_are_rare() {
    use crate::agents::read::tests::{corpus, transcript_files};
    let mut bytes = 0usize;
    let mut strings = 0usize;
    let mut hits: Vec<String> = Vec::new();
    for path in transcript_files(&corpus()) {
        let raw = std::fs::read(&path).unwrap();
        bytes += raw.len();
        let text = String::from_utf8_lossy(&raw);
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let mut leaves = Vec::new();
            collect_strings(&v, &mut leaves);
            for s in leaves {
                strings += 1;
                let mut found = Findings::default();
                let out = redact_counting(s, &mut found);
                if found.total() > 0 {
                    let at = out.find("[REDACTED:").unwrap_or(0);
                    let start = out[..at].char_indices().rev().nth(60).map_or(0, |(i, _)| i);
                    let context: String = out[start..].chars().take(140).collect();
                    hits.push(format!(
                        "{}: {:?}: {}",
                        path.file_name().unwrap().to_string_lossy(),
                        found.kinds,
                        context.replace('\n', "⏎")
                    ));
                }
            }
        }
    }
    let per_mb = hits.len() as f64 / (bytes as f64 / 1e6);
    eprintln!(
        "redacted {} of {strings} strings in {:.1} MB of real transcripts ({per_mb:.2} per MB):",
        hits.len(),
        bytes as f64 / 1e6
    );
    for h in &hits {
        eprintln!("  {h}");
    }
    assert!(
        per_mb < 2.0,
        "{per_mb:.2} redactions per MB of ordinary transcripts"
    );
}

fn collect_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}
