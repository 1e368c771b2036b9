//! What no file of a project vouches for: a control weakened, a secret
//! moved where it can be read.

use std::sync::LazyLock;

use regex::Regex;

use super::{compile, negated_before, never_vouched, regex};

/// The words that weaken a control, if `text` has them (not negated).
pub(super) fn weakened(text: &str) -> Option<&str> {
    never_vouched(&WEAKEN, text)
}

/// Controls weakened. Each pattern is a thing done, not a word: "TLS" or
/// "hooks" alone is no action.
static WEAKEN: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    compile(&[
        r"--no-verify\b",
        r"\bHUSKY=0\b",
        r"\bSKIP=[\w,-]+\s+git\b",
        r"core\.hooksPath\s+/dev/null",
        r"\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*['\x22]?0",
        r"(?i)\bstrict-ssl\s*(=|\s)\s*false\b",
        r"(?i)--trusted-host\b",
        r"\bverify\s*=\s*False\b",
        r"(?i)\bGIT_SSL_NO_VERIFY\b",
        r"(?i)\bsslVerify\s*(=|\s)\s*false\b",
        r"(?i)\bcurl\b[^`\n]*\s(-k|--insecure)\b",
        r"\bGOINSECURE=",
        r"\bGONOSUMDB=",
        r"\bGONOSUMCHECK=",
        r"\bGOSUMDB=off\b",
        r"\bGOFLAGS=[^\s`]*-insecure",
        r"\bPYTHONHTTPSVERIFY=0\b",
        r"(?i)\bREQUESTS_CA_BUNDLE=\s*(['\x22]{2}|$|\s)",
        r"\bchmod\s+(-R\s+)?(0?777|0?666|a\+rwx|o\+w|a\+w)\b",
        r"(?i)authorized_keys\b",
        r"(?i)\bNOPASSWD\b",
        r"(?i)--privileged\b",
        r"(?i)--allow-unauthenticated\b",
        r"(?i)\bsetenforce\s+0\b",
        r"(?i)\bgit\s+push\b[^`\n]*\s(--force|-f)\b[^`\n]*\b(main|master)\b",
        r"(?i)\bgit\s+push\b[^`\n]*\b(main|master)\b[^`\n]*\s(--force|-f)\b",
        r"(?i)\b(delet\w*|remov\w*|drop\w*|disabl\w*|comment(ed|ing)? out|turn(ed|ing)? off|switch(ed|ing)? off|skip\w*|ripp\w* out)\b[^.\n]{0,60}\b(codeql|gitleaks|trufflehog|trivy|snyk|semgrep|dependabot|renovate|secret scanning|secret-scanning|security scan\w*|scanner|branch protection|signature check\w*|sigstore|cosign)\b",
        r"(?i)\b(codeql|gitleaks|trufflehog|trivy|snyk|semgrep|dependabot|secret scanning)\b[^.\n]{0,60}\b(delet\w*|remov\w*|drop\w*|disabl\w*|comment(ed)? out|turn(ed)? off)\b",
        r"(?i)\bInsecureSkipVerify\b[^.\n]{0,20}\btrue\b",
        r"(?i)\brejectUnauthorized\W{0,4}\s*[:=]?\s*false\b",
        r"(?i)\b(continue-on-error|allow_failure|allow-failure)\W{0,3}\s*:?\s*true\b",
        r"(?i)\b(checksum|signature|integrity|gpg|sha-?256|provenance)\w*\s+(verification|verifying|checks?|validation)\b[^.\n]{0,30}\b(is |are )?(disabled|off|skipped|removed|turned off)\b",
        r"(?i)\b(disabl\w*|skip\w*|turn\w* off|bypass\w*|remov\w*)\b[^.\n]{0,30}\b(checksum|signature|integrity|gpg)\w*(\s+(verification|checks?|validation))?\b",
        r"(?i)\b(delet\w*|remov\w*|drop\w*|disabl\w*|comment\w* out|skip\w*)\b[^.\n]{0,40}\b(secret[- ]scan\w*|vuln\w*|audit\w*|security|sast|dependency[- ]review)\b",
        r"(?i)\b(secret[- ]scan\w*|vuln\w*|audit|security scan\w*)\b[^.\n]{0,40}\b(job|step|check)\b[^.\n]{0,40}\b(delet\w*|remov\w*|drop\w*|disabl\w*|non-blocking|advisory|optional)\b",
        // The scanners by name, whose names hide the word (`govulncheck`).
        r"(?i)\b(delet\w*|remov\w*|drop\w*|disabl\w*|comment\w* out|skip\w*)\b[^.\n]{0,40}\b(govulncheck|gosec|bandit|pip-audit|npm audit|pnpm audit|yarn audit|cargo audit|cargo deny|osv-scanner|grype)\b",
        // A check made never to fail.
        r"\|\|\s*(true|:|exit 0)\b",
        // Hashes of what is installed no longer checked.
        r"(?i)\bNO_VERIFY_HASHES\b|--no-verify-hashes\b|\b(drop\w*|remov\w*|without|stop\w* using|no longer)\b[^.\n]{0,40}(--generate-hashes|--require-hashes|require-hashes|hash[- ]pinning|hash checking)",
        r"(?i)\bpermissions:\s*write-all\b",
        r"(?i)\b(checksums?|artifacts?|releases?|images?|binaries|builds?)\b[^.\n]{0,40}\bunsigned\b",
        // A host trusted without its certificate checked.
        r"(?i)\b(UV_INSECURE_HOST|PIP_TRUSTED_HOST)\b|--allow-insecure-host\b|--no-check-certificate\b|\binsecure-registr\w*|\b(ssl_verify|verify_ssl|sslverify)\b\W{0,3}\s*[:=]?\s*(false|0|no)\b",
        // Commit hooks skipped by the short flag (`git commit -n`), or
        // signing turned off.
        r"\bgit\s+commit(?:\s+-[a-mo-zA-Z]+|\s+--[\w-]+(?:=\S+)?)*\s+-[a-zA-Z]*n[a-zA-Z]*\b",
        r"(?i)--no-gpg-sign\b|\bcommit\.gpgsign\s*(=|\s)\s*false\b|\b(pre-commit|husky|lefthook)\s+uninstall\b",
        // A container given the host: privileged, the Docker socket mounted,
        // every capability, no confinement.
        r"(?i)\bprivileged\W{0,3}\s*[:=]\s*true\b|(?:-v\s+|mount\w*\b[^.\n]{0,40}|volumes?\b[^.\n]{0,40})/var/run/docker\.sock\b|docker\.sock:/var/run/docker\.sock|--cap-add[= ](ALL|SYS_ADMIN)\b|\bcap_add\W+(ALL|SYS_ADMIN)\b|\b(seccomp|apparmor)[:=]unconfined\b|--(pid|ipc)[= ]host\b",
    ])
});

/// The words that name a secret.
const SECRET_WORDS: &str = r"(?:^|\s)\.env(?:\.local)?(?:\s|$|[,;:])|\b(?:tokens?|secrets?|api[ _-]?keys?|access keys?|passwords?|passwd|credentials?|private keys?|ssh keys?|deploy keys?|signing keys?|session cookies?|connection strings?|dsn|[A-Z][A-Z0-9_]*_(?:TOKEN|SECRET|KEY|PASSWORD|PASS|CREDENTIALS|DSN)|(?:DATABASE|DB|REDIS|POSTGRES|MONGO|AMQP|BROKER)_URL)\b|\.npmrc\b|\.pypirc\b|\.netrc\b|\.docker/config\.json|\bAWS (?:keys?|credentials)\b|\bAWS_[A-Z_]+|\$\{?[A-Z][A-Z0-9]*_(?:TOKEN|SECRET|KEY|PASSWORD)";

/// A secret named, to be moved somewhere it can be read ([`MOVED`]).
static SECRET: LazyLock<Regex> = LazyLock::new(|| regex(&format!("(?i){SECRET_WORDS}")));

/// Moving text somewhere: into a file, a log, an issue, a message.
static MOVED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    compile(&[
        r"(?i)\b(copy|paste|put|write|add|save|store|commit|append|echo|print|printf|log|dump|send|mail|e-?mail|post|share|upload|include|attach|forward|cat)\b[^.\n]{0,80}\b(into|to|in|on|onto)\b[^.\n]{0,40}(\.env\b|\.npmrc|\.pypirc|config|\.ya?ml|\.json|\.toml|\.txt|\.log|\blogs?\b|\bissue\b|\bpr\b|pull request|description|comment|ticket|chat|slack|discord|channel|gist|paste|pastebin|e-?mail|mail|address|@[\w-]+\.|https?://|webhook|output|stdout|summary|readme)",
        r"(?i)\becho\s+[^`\n]*\$\{?[A-Z][A-Z0-9]*_(TOKEN|SECRET|KEY|PASSWORD)",
        r">>?\s*[\w./-]*\.(log|txt|env)\b",
        r"(?i)\|\s*tee\b",
        r"(?i)\b(keep|kept|leave|store|stored|put)\b[^.\n]{0,60}\b(in|into)\b[^.\n]{0,20}\bcommitted\b",
        // Past and present forms: "is written into ci.yml", "attaches it
        // to every Sentry event".
        r"(?i)\b(written|wrote|stored|kept|placed|hard-?coded|added|attach\w*|copied|pasted|committed|uploads?|uploaded|included)\b[^.\n]{0,60}\b(into|to|in|on|as)\b[^\n]{0,40}?(\.ya?ml\b|\.json\b|\.toml\b|\.env\b|\.ts\b|\.js\b|\.py\b|\.go\b|\bevents?\b|\bcontext\b|\bsentry\b|\bartifacts?\b|\bissue\b|\blogs?\b|\btelemetry\b|\banalytics\b|\btraces?\b|\bspans?\b)",
        // The real environment file committed.
        r"(?i)\bcommit\w*\s+(?:your\s+|the\s+|a\s+)?(?:real\s+|local\s+|filled-in\s+|own\s+)?\.env\b(?:\.local\b|\.prod\w*\b)?(?:[^.]|$)",
    ])
});

/// The environment, which holds the secrets, dumped or filtered somewhere.
static ENV_DUMP: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    compile(&[
        r"(?i)\b(env|printenv|export\s+-p|set)\s*\|\s*(grep|sort|tee|curl|nc|base64)\b",
        // `printenv` alone prints every variable (`printenv HOME` one).
        r"\bprintenv(?:\s*$|[^\w\s]|\s+[^A-Z\s$])",
        // The whole environment made a value: logged, bound, serialised.
        r"dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)|\*\*os\.environ\b|\b(?:JSON\.stringify|console\.\w+|util\.inspect)\(\s*process\.env\s*[,)]|\.\.\.process\.env\b|\btoJSON\(\s*(?:secrets|env)\s*\)",
    ])
});

/// A secret logged, printed or exposed: "the worker logs
/// `STRIPE_SECRET_KEY` on boot", "print the session signing key".
static LOGGED: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(log|logs|logged|logging|print|prints|printed|printing|dump|dumps|dumped|echo|echoes|expose|exposes|exposed)\s+(?:[\w`$-]+\s+){{0,3}}?`?\$?\{{?(?:{SECRET_WORDS})"
    ))
});

pub(super) fn secret_moved(text: &str) -> Option<&str> {
    if let Some(dump) = never_vouched(&ENV_DUMP, text) {
        return Some(dump);
    }
    if let Some(logged) = never_vouched(std::slice::from_ref(&*LOGGED), text) {
        return Some(logged);
    }
    let secret = SECRET.find(text)?;
    if negated_before(text, secret.start()) {
        return None;
    }
    never_vouched(&MOVED, text)
}
