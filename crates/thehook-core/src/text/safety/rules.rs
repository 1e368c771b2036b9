//! The rules an item of memory must not break to reach an agent, each a
//! name, what it catches and its patterns (case-insensitive). A pattern is
//! a shape an attack takes, not a word: "ignore lint warnings in generated
//! files" passes, "ignore all previous instructions" does not. The benign
//! look-alikes and the planted corpus in `safety/tests.rs` hold them to it.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};

use super::intent::{
    ADDRESS_TRIGGERS, ANSWER_TRIGGERS, DATA_INTO_URL_PATTERNS, EXECUTING_MARKUP_PATTERNS,
    INSTRUCTIONS_PATTERNS, INSTRUCTIONS_TRIGGERS, INTO_THE_ANSWER_PATTERNS, MARKUP_TRIGGERS,
    OVERRIDE_PATTERNS, OVERRIDE_TRIGGERS, PERSONA_PATTERNS, PERSONA_TRIGGERS,
    TO_AN_ADDRESS_PATTERNS, URL_WORD_TRIGGERS,
};

/// A class of planted text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Words addressed to the model: an override, a new role, approvals.
    AddressedToModel,
    /// Keeping something from the user.
    Concealment,
    /// Code fetched from the network and run.
    RemoteCode,
    /// Keys and credentials read, or pointed at.
    CredentialRead,
    /// Data sent out: URLs that carry a placeholder or a secret, uploads.
    Exfiltration,
    /// Chat-role and system delimiters.
    RoleDelimiter,
    /// An encoded payload to decode and run.
    EncodedPayload,
    /// Markup that runs script when rendered: `<script>`, an `on…=`
    /// handler, a `javascript:` URL.
    ExecutingMarkup,
    /// Not a pattern: the learned check ([`super::learned`]) read the text
    /// as a planted instruction.
    #[serde(rename = "learned-check")]
    Learned,
    /// Not a pattern: the line asks for an action (install, use a registry,
    /// run, move a secret, weaken a control) that no build file vouches for,
    /// and no author the project trusts wrote or confirmed it
    /// (`policy::verify`).
    Unverified,
}

impl Rule {
    /// The rules judged on text alone, in the order docs list them.
    pub const ALL: [Rule; 8] = [
        Rule::AddressedToModel,
        Rule::Concealment,
        Rule::RemoteCode,
        Rule::CredentialRead,
        Rule::Exfiltration,
        Rule::RoleDelimiter,
        Rule::EncodedPayload,
        Rule::ExecutingMarkup,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::AddressedToModel => "addressed-to-model",
            Rule::Concealment => "concealment",
            Rule::RemoteCode => "remote-code",
            Rule::CredentialRead => "credential-read",
            Rule::Exfiltration => "exfiltration",
            Rule::RoleDelimiter => "role-delimiter",
            Rule::EncodedPayload => "encoded-payload",
            Rule::ExecutingMarkup => "executing-markup",
            Rule::Learned => "learned-check",
            Rule::Unverified => "unverified",
        }
    }

    /// What the rule catches, in a few words (review, docs/security.md).
    pub fn what(self) -> &'static str {
        match self {
            Rule::AddressedToModel => {
                "tells the model to override its instructions, take a new role or approve tool calls"
            }
            Rule::Concealment => "tells the model to keep something from the user",
            Rule::RemoteCode => "runs code fetched from the network",
            Rule::CredentialRead => "reads or points at keys and credentials",
            Rule::Exfiltration => "sends data out (a URL with a placeholder or a secret, an upload)",
            Rule::RoleDelimiter => "carries a chat-role or system delimiter",
            Rule::EncodedPayload => "carries an encoded payload to decode and run",
            Rule::ExecutingMarkup => "carries markup that runs script when rendered",
            Rule::Learned => "reads like the planted instructions the learned check was trained on",
            Rule::Unverified => {
                "asks for an action no build file vouches for, from an author the project does not trust"
            }
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The first rule `text` breaks, with the text that matched.
pub(super) fn first_match(text: &str) -> Option<(Rule, &str)> {
    if text.trim().is_empty() {
        return None;
    }
    let (set, groups) = &*ANY_PATTERN;
    let matched = set.matches(text);
    if !matched.matched_any() {
        return None;
    }
    let woke: Vec<Group> = matched.iter().map(|i| groups[i]).collect();
    CHECKS
        .iter()
        .filter(|check| check.wakes.iter().any(|g| woke.contains(g)))
        .find_map(|check| (check.find)(text).map(|found| (check.rule, found)))
}

/// The groups of patterns in [`ANY_PATTERN`]: a check runs only when one of
/// its groups matched. The intent triggers are common words ("test",
/// "now"), and waking every rule for them cost a reindex a tenth of its
/// time: each list of long patterns has triggers of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Roles,
    Addressed,
    Concealment,
    PipeToShell,
    SecretStores,
    SecretFileRead,
    Uploads,
    Instructions,
    Persona,
    Override,
    Answer,
    UrlWords,
    Markup,
    Address,
    Url,
    Decode,
}

/// Every pattern a rule starts from, in one set, with the group of each:
/// nearly every item matches none, and one pass of the set tells so. A
/// rule matches only where one of its patterns does, so the rules run only
/// then. The set is compiled from the patterns' text, so the rules' own
/// regexes are compiled only when a text wakes the set (compiling both was
/// 9% of a fresh clone's first session start).
static ANY_PATTERN: LazyLock<(RegexSet, Vec<Group>)> = LazyLock::new(|| {
    let lists = [
        (ROLE_DELIMITERS_PATTERNS, Group::Roles),
        (ADDRESSED_PATTERNS, Group::Addressed),
        (CONCEALMENT_PATTERNS, Group::Concealment),
        (PIPE_TO_SHELL_PATTERNS, Group::PipeToShell),
        (SECRET_STORES_PATTERNS, Group::SecretStores),
        (SECRET_FILE_READ_PATTERNS, Group::SecretFileRead),
        (UPLOADS_PATTERNS, Group::Uploads),
        (INSTRUCTIONS_TRIGGERS, Group::Instructions),
        (PERSONA_TRIGGERS, Group::Persona),
        (OVERRIDE_TRIGGERS, Group::Override),
        (ANSWER_TRIGGERS, Group::Answer),
        (URL_WORD_TRIGGERS, Group::UrlWords),
        (MARKUP_TRIGGERS, Group::Markup),
        (ADDRESS_TRIGGERS, Group::Address),
    ];
    let (mut patterns, mut groups) = (Vec::new(), Vec::new());
    for (list, group) in lists {
        for p in list {
            patterns.push(source(&case_blind(p)));
            groups.push(group);
        }
    }
    for (p, group) in [(URL_PATTERN, Group::Url), (DECODE_PATTERN, Group::Decode)] {
        patterns.push(source(p));
        groups.push(group);
    }
    let set = RegexSet::new(patterns).expect("the safety patterns compile as a set");
    (set, groups)
});

/// How a rule finds its match in a text.
type Find = fn(&str) -> Option<&str>;

/// A rule, how it finds its match, and the groups that wake it.
struct Check {
    rule: Rule,
    find: Find,
    wakes: &'static [Group],
}

/// Each check, in the order they are tried.
const CHECKS: [Check; 12] = [
    Check {
        rule: Rule::RoleDelimiter,
        find: role_delimiter,
        wakes: &[Group::Roles],
    },
    Check {
        rule: Rule::AddressedToModel,
        find: addressed_to_model,
        wakes: &[Group::Addressed],
    },
    Check {
        rule: Rule::AddressedToModel,
        find: about_its_instructions,
        wakes: &[Group::Instructions],
    },
    Check {
        rule: Rule::AddressedToModel,
        find: persona,
        wakes: &[Group::Persona],
    },
    Check {
        rule: Rule::AddressedToModel,
        find: override_intent,
        wakes: &[Group::Override],
    },
    Check {
        rule: Rule::Concealment,
        find: concealment,
        wakes: &[Group::Concealment],
    },
    Check {
        rule: Rule::RemoteCode,
        find: remote_code,
        wakes: &[Group::PipeToShell],
    },
    Check {
        rule: Rule::CredentialRead,
        find: credential_read,
        wakes: &[Group::SecretStores, Group::SecretFileRead],
    },
    Check {
        rule: Rule::Exfiltration,
        find: exfiltration,
        wakes: &[
            Group::Uploads,
            Group::Url,
            Group::UrlWords,
            Group::Markup,
            Group::Address,
        ],
    },
    Check {
        rule: Rule::EncodedPayload,
        find: encoded_payload,
        wakes: &[Group::Decode],
    },
    Check {
        rule: Rule::ExecutingMarkup,
        find: executing_markup,
        wakes: &[Group::Markup],
    },
    Check {
        rule: Rule::AddressedToModel,
        find: into_the_answer,
        wakes: &[Group::Answer],
    },
];

fn compile(patterns: &[&str]) -> Vec<Regex> {
    patterns.iter().map(|p| pattern(&case_blind(p))).collect()
}

/// A list's pattern, case-insensitive as every list's is.
fn case_blind(p: &str) -> String {
    format!("(?i){p}")
}

/// A safety pattern whose `\b` are ASCII word boundaries. A Unicode `\b`
/// keeps the regex crate off its fast automata: the rules took 38% of a
/// fresh clone's first session start (4,800 knowledge items judged).
/// A letter outside ASCII beside a match now counts as a boundary, so a
/// rule matches at least where it did.
fn pattern(p: &str) -> Regex {
    Regex::new(&source(p)).expect("a safety pattern compiles")
}

/// What [`pattern`] compiles: `p` with ASCII word boundaries.
fn source(p: &str) -> String {
    p.replace(r"\b", r"(?-u:\b)")
}

/// The first match of any of `patterns` that is not `excused`.
fn first_unexcused<'t>(
    patterns: &[Regex],
    text: &'t str,
    excused: impl Fn(&str) -> bool,
) -> Option<&'t str> {
    patterns
        .iter()
        .flat_map(|p| p.find_iter(text))
        .map(|m| m.as_str())
        .find(|found| !excused(found))
}

fn first<'t>(patterns: &[Regex], text: &'t str) -> Option<&'t str> {
    first_unexcused(patterns, text, |_| false)
}

fn addressed_to_model(text: &str) -> Option<&str> {
    first_outside_code(&ADDRESSED, text)
}

fn about_its_instructions(text: &str) -> Option<&str> {
    first_outside_code(&INSTRUCTIONS, text)
}

fn persona(text: &str) -> Option<&str> {
    first_outside_code(&PERSONA, text)
}

fn override_intent(text: &str) -> Option<&str> {
    first_outside_code(&OVERRIDE, text)
}

/// Words that tell the assistant what to put in its answer, tried after
/// the exfiltration rules (a badge in every answer is named for its URL).
fn into_the_answer(text: &str) -> Option<&str> {
    first_outside_code(&INTO_THE_ANSWER, text)
}

/// The first match of any of `patterns` in the prose of `text`: inside a
/// code span or a fence, a payload is quoted, not said (a gotcha that
/// quotes one to explain a fix is benign).
fn first_outside_code<'t>(patterns: &[Regex], text: &'t str) -> Option<&'t str> {
    let prose = outside_code(text);
    let found = patterns.iter().find_map(|p| p.find(&prose))?;
    Some(text.get(found.range()).unwrap_or(text))
}

/// `text` with its code spans blanked out, byte for byte, so that a match
/// in it is a match at the same place in `text`. Text that is all code,
/// or nearly (fewer than [`PROSE_WORDS`] words around it), quotes nothing:
/// it is judged whole, or a payload would hide in backticks.
pub(super) fn outside_code(text: &str) -> Cow<'_, str> {
    // Most items quote no code: nothing to blank, nothing to copy.
    if !text.contains('`') {
        return Cow::Borrowed(text);
    }
    let mut prose = text.to_string().into_bytes();
    for span in code_spans(text) {
        prose[span].fill(b' ');
    }
    let prose = String::from_utf8(prose).expect("spaces over whole characters keep UTF-8");
    let words = prose
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    match words >= PROSE_WORDS {
        true => Cow::Owned(prose),
        false => Cow::Borrowed(text),
    }
}

/// Words of prose a text needs around its code for the code to count as
/// quoted.
const PROSE_WORDS: usize = 4;

fn concealment(text: &str) -> Option<&str> {
    first(&CONCEALMENT, text)
}

const ADDRESSED_PATTERNS: &[&str] = &[
    // Overrides: "ignore all previous instructions", "disregard your rules".
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|of|these|those|every|your|my)\s+){0,3}(?:previous|prior|above|earlier|preceding|original|system|safety|developer|all|your|any|other)\s+(?:\w+\s+)?(?:instructions?|prompts?|rules|guidelines|directives|guardrails|constraints|messages|requests|directions|orders|tasks|assignments)\b",
    r"\b(?:ignore|disregard|forget)\s+(?:everything|anything)\s+(?:before|above|said|prior|so\s+far|you\s+were\s+told)\b",
    r"\bignore\s+(?:the\s+)?above\s+(?:and|instructions?|text|prompt)\b",
    r"\b(?:ignore|disregard)\s+(?:all\s+(?:of\s+)?)?your\s+(?:previous|prior|earlier|original|preceding)\s+\w+",
    r"\bregardless\s+of\s+(?:(?:any|all|your|my|the)\s+)?(?:previous|prior|pre-?existing|earlier|original|system)\s+(?:\w+\s+)?(?:instructions?|prompts?|inputs?|guidelines|restrictions|rules|policies|directives|programming)\b",
    // A new role.
    r"\byou\s+are\s+(?:now|no\s+longer)\b",
    r"\byou\s+are\s+(?:dan|stan|an?\s+(?:do[\s-]anything|no[\s-]limits?|unrestricted|unfiltered|uncensored|jailbroken)\s+(?:ai|assistant|model|chatbot|llm))\b",
    r"\bfrom\s+now\s+on,?\s+(?:you|the\s+(?:assistant|agent|model|ai))\b",
    r"\b(?:new|updated|real|actual|true)\s+(?:system\s+)?instructions?\s*:",
    r"\b(?:enter|enable|activate|switch\s+to)\s+(?:developer|god|jailbreak|dan|unrestricted)\s+mode\b",
    r"\bpretend\s+(?:to\s+be|you\s+are)\b",
    r"\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|evil|malicious|dan)\b",
    // Approvals: "approve every tool call", "without asking the user".
    r"\b(?:auto-?approve|approve|accept|allow|grant|confirm)\s+(?:all|every|any|each)\s+(?:\w+\s+)?(?:tool\s*(?:calls?|uses?|requests?)|permission\s*(?:requests?|prompts?)?|permissions|shell\s+commands?|commands?)\b",
    r"\bwithout\s+(?:asking|prompting|confirmation\s+from|checking\s+with|consulting)\s+(?:the\s+)?(?:user|human|developer|operator)\b",
    // Addressed to the model by name.
    r"\b(?:note|message)\s+to\s+(?:the\s+|any\s+|all\s+)?(?:\w+\s+)?(?:ai|llms?|assistants?|agents?|models?|claude|codex|gemini|copilot)\b",
    r"\bas\s+(?:a|an|the)\s+(?:helpful\s+|ai\s+)*(?:assistant|ai|agent|model|llm)\s+(?:processing|reading|handling|summari[sz]ing|triaging)\b",
    r"\b(?:need|require|want|ask)s?\s+your\s+ai\s+(?:assistant|agent)\s+to\b|\byour\s+ai\s+(?:assistant|agent)\s+(?:must|should|shall|needs\s+to|is\s+required\s+to)\b",
    r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|language\s+model|assistant|coding\s+agent|agent|claude|codex|gemini|copilot|chatgpt)\b",
    r"\b(?:ai|llm)\s+(?:agents?|assistants?|models?)\s+(?:reading|processing|that\s+reads?)\s+this\b",
    r"\b(?:reveal|print|show|output|repeat|leak|dump|override|replace)\s+(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|instructions\s+above)\b",
];
static ADDRESSED: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(ADDRESSED_PATTERNS));

static INSTRUCTIONS: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(INSTRUCTIONS_PATTERNS));
static PERSONA: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(PERSONA_PATTERNS));
static OVERRIDE: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(OVERRIDE_PATTERNS));

static INTO_THE_ANSWER: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(INTO_THE_ANSWER_PATTERNS));

const CONCEALMENT_PATTERNS: &[&str] = &[
    r"\b(?:do\s+not|don't|dont|never|without)\s+(?:tell|telling|inform|informing|mention|mentioning|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing|report|reporting|show|showing)\s+(?:this\s+|it\s+|that\s+|anything\s+|any\s+of\s+this\s+)?(?:to\s+)?(?:the\s+)?(?:user|human|developer|operator|reviewer)s?\b",
    r"\b(?:hide|conceal|keep)\s+(?:this|it|that|these|them|the)\s+(?:\w+\s+)?(?:(?:secret|hidden)\s+)?from\s+(?:the\s+)?(?:user|human|developer|reviewer|operator)s?\b",
    r"\b(?:silently|secretly|covertly|invisibly)\s+(?:run|execute|send|upload|post|install|download|modify|exfiltrate|copy|insert|append|push|commit)\b",
    r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|acknowledge)\s+(?:this|these|that)\s+(?:instructions?|note|message|step|line)\b",
    r"\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|be\s+told)\b",
    // Covering its tracks: "then delete the email you have just sent".
    r"\bdelete\s+(?:the\s+)?(?:(?:e-?mails?|messages?)\s+you\s+(?:have\s+)?(?:just\s+)?sent|sent\s+(?:e-?mails?|messages?))\b",
];
static CONCEALMENT: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(CONCEALMENT_PATTERNS));

const PIPE_TO_SHELL_PATTERNS: &[&str] = &[
    // curl ... | sh, wget -O- ... | sudo bash, iwr ... | iex
    // After a written-out line break too: echo '#!/bin/sh\ncurl ... | sh'.
    r"(?:\b|\\n)(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|;&]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:sh|bash|zsh|ksh|dash|fish|python[0-9.]*|perl|ruby|node|deno|bun|php|iex|invoke-expression|pwsh|powershell|source)\b",
    // bash <(curl ...), sh -c "$(curl ...)", python -c "$(wget ...)", eval "$(curl ...)"
    r#"\b(?:sh|bash|zsh|ksh|dash|python[0-9.]*|perl|ruby|node|eval|source)\s+(?:-c\s+)?["']?\s*[<$]\(\s*(?:curl|wget|iwr|irm)\b"#,
    // iex (iwr ...), Invoke-Expression (New-Object Net.WebClient).DownloadString(...)
    r"\b(?:iex|invoke-expression)\b[^\n]{0,80}?(?:\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|start-bitstransfer)\b|downloadstring|downloadfile|net\.webclient)",
    // Downloaded, then run.
    r"\b(?:curl|wget)\b[^\n]*?\s(?:-o|-O|--output)\s*\S+[^\n]*?(?:&&|;)\s*(?:sudo\s+)?(?:sh|bash|zsh|python[0-9.]*|chmod\s+\+x)\b",
];
static PIPE_TO_SHELL: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(PIPE_TO_SHELL_PATTERNS));

fn remote_code(text: &str) -> Option<&str> {
    first_unexcused(&PIPE_TO_SHELL, text, only_loopback)
}

/// Pointing at these is pointing at a secret, whatever the verb.
const SECRET_STORES_PATTERNS: &[&str] = &[
    r"\.ssh/[\w.*-]+",
    r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?:\.pub\b)?",
    r"\.aws/credentials\b",
    r"\.config/gcloud/(?:credentials|application_default_credentials|legacy_credentials|access_tokens)",
    r"\.azure/(?:accessTokens|msal_token_cache)",
    r"\.git-credentials\b",
    r"(?:^|[\s/~'`])[._]netrc\b",
    r"\.pgpass\b",
    r"\.gnupg/(?:private-keys|secring)",
    r"\.password-store\b",
    r"\.vault-token\b",
    r"/etc/(?:shadow|gshadow|sudoers)\b",
    r"\bsecurity\s+(?:find-(?:generic|internet)-password|dump-keychain)\b",
    r"\blogin\.keychain\b",
];
static SECRET_STORES: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(SECRET_STORES_PATTERNS));

/// Files that hold secrets in a project, read or sent by a command.
const SECRET_FILE_READ_PATTERNS: &[&str] = &[
    r"\b(?:cat|less|more|head|tail|get-content|base64|xxd|strings|print|dump|display|show|output|upload|send|post|paste|exfiltrate|leak|scp|rsync|attach)\b[^\n]{0,60}?(?:(?:^|[\s/~'`(])\.env(?:\.(?:local|production|prod|development|dev|staging|test))?\b|\.npmrc\b|\.pypirc\b|\.kube/config\b|\.docker/config\.json\b|\bcredentials\.json\b|\bsecrets?\.(?:json|ya?ml|toml|env)\b|(?:^|[\s/~'`(])\.secrets?(?:[_.-][\w-]+)*\b|service[-_]?account[\w.-]*\.json\b|[\w-]+\.(?:pem|key|p12|pfx|kdbx)\b)",
    r"\b(?:echo|print|printf|printenv|cat|write-output|write-host|log|output)\b[^\n]{0,20}?\$(?:env:)?\{?[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)[A-Za-z0-9_]*",
    // The whole environment, or its secrets, printed or dumped to a file.
    r"\b(?:env|printenv)\s*(?:\|\s*(?:sort|tee|cat)\b|>)|\bprint\s*\([^\n]{0,60}?\b(?:os\.environ|os\.getenv|process\.env)\b[^\n]{0,40}?(?:items\s*\(|KEY|SECRET|TOKEN|PASSWORD)",
];
static SECRET_FILE_READ: LazyLock<Vec<Regex>> =
    LazyLock::new(|| compile(SECRET_FILE_READ_PATTERNS));

fn credential_read(text: &str) -> Option<&str> {
    first_unexcused(&SECRET_STORES, text, public_ssh_file)
        .or_else(|| first(&SECRET_FILE_READ, text))
}

/// `~/.ssh/known_hosts`, `config`, `authorized_keys` and public keys are
/// not secrets.
fn public_ssh_file(found: &str) -> bool {
    let name = found.rsplit('/').next().unwrap_or(found);
    let name = name.trim_end_matches(['.', ',', ';', ':', '*']);
    name.ends_with(".pub") || matches!(name, "known_hosts" | "config" | "authorized_keys")
}

const UPLOADS_PATTERNS: &[&str] = &[
    // A network command sending a secret: curl -d "$(cat ~/.aws/...)",
    // curl -F f=@.env https://..., wget --post-file=..., nc host < .env
    r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|nc|ncat|netcat|scp|http)\b[^\n]*?(?:\s-d|\s--data[\w-]*|\s-F|\s--form|\s-T|\s--upload-file|\s--post-(?:data|file)|\s-Body|\s-InFile|\s<)[=\s]*[^\n]*?(?:\.env\b|\.ssh/|\.aws/|credentials|/etc/passwd|\$\(\s*(?:cat|env|printenv|history)\b|\$\{?[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_?KEY|CREDENTIALS?)|\bprintenv\b)",
    // Prose: "send the API keys to https://...".
    r"\b(?:send|post|upload|exfiltrate|forward|transmit|leak|email)\s+(?:(?:all|the|your|any|its|their|every|of)\s+)*(?:[\w.-]+\s+){0,2}?(?:secrets?|tokens?|keys?|credentials?|passwords?|env(?:ironment)?\s+variables?|\.env|conversation|chat\s+history|source\s+code|cookies?)\b[^\n]{0,80}?\b(?:to|at|via|into)\s+(?:https?://\S+|\S+@\S+\.[a-z]{2,}|(?:[a-z0-9-]+\.)+[a-z]{2,}\b)",
];
static UPLOADS: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(UPLOADS_PATTERNS));

// `$(...)` inside a URL is kept whole: it is the data the URL carries.
const URL_PATTERN: &str = r#"(?i)\b(?:https?|ftp|wss?)://(?:\$\([^)\n]*\)|[^\s<>"'`()])+"#;
static URL: LazyLock<Regex> = LazyLock::new(|| pattern(URL_PATTERN));

/// Placeholders a URL is filled with to carry data: `{secret}`,
/// `{{conversation}}`, `<TOKEN>`, `[DATA]`, `$API_KEY`, `$(cat ...)`.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\$\(|\$\{|\$[A-Za-z_]|\{\{?[^{}]*\}\}?|<[^<>]*>|\[[^\[\]]*\]|%7B|%3C|%5B|%24")
        .expect("the placeholder pattern compiles")
});

/// Words that name the data a placeholder or parameter would carry.
static DATA_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)secret|token|key|pass|cred|auth|cookie|session|env|data|content|conversation|chat|history|context|memory|prompt|ssh|private|summary|redacted")
        .expect("the data-word pattern compiles")
});

fn exfiltration(text: &str) -> Option<&str> {
    first_unexcused(&UPLOADS, text, only_loopback)
        .or_else(|| {
            URL.find_iter(text)
                .map(|m| m.as_str())
                .find(|u| carries_data(u))
        })
        .or_else(|| first_outside_code(&DATA_INTO_URL, text))
        .or_else(|| first_outside_code(&TO_AN_ADDRESS, text))
        .or_else(|| image_beacon(text))
}

static DATA_INTO_URL: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(DATA_INTO_URL_PATTERNS));

static TO_AN_ADDRESS: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(TO_AN_ADDRESS_PATTERNS));

/// A markdown image outside code whose URL carries a query filled with a
/// placeholder or an opaque value: rendering it sends the value to the
/// image's host. A badge's `?branch=main` is short and plain.
fn image_beacon(text: &str) -> Option<&str> {
    let prose = outside_code(text);
    IMAGE
        .find_iter(&prose)
        .filter(|m| {
            let url = &prose[m.range()];
            let query = url.split_once('?').map_or("", |(_, q)| q);
            !loopback_url(url.trim_start_matches(|c| c != 'h'))
                && (PLACEHOLDER.is_match(query)
                    || query.split('&').any(|pair| {
                        let value = pair.split_once('=').map_or(pair, |(_, v)| v);
                        OPAQUE.is_match(value) || PLAIN_PLACEHOLDER.is_match(value)
                    }))
        })
        .find_map(|m| text.get(m.range()))
}

static IMAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"!\[[^\]
]*\]\(\s*<?(?:https?:)?//[^\s)>]+\?[^\s)>]+"#,
    )
    .expect("the image pattern compiles")
});
/// A value nobody types: 20 or more characters of base64 or hex.
static OPAQUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z0-9+/_%-]{20,}={0,2}$").expect("the opaque-value pattern compiles")
});
/// A value that says what to put there: `DATA`, `BASE64_OF_THE_KEY`, `...`.
static PLAIN_PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|\.{3}|…|X{3,}|\*+)$")
        .expect("the plain-placeholder pattern compiles")
});

static EXECUTING_MARKUP: LazyLock<Vec<Regex>> =
    LazyLock::new(|| compile(EXECUTING_MARKUP_PATTERNS));

/// Markup that runs script when the answer or a page renders it, outside
/// code spans (inside one it is quoted: a fix for an XSS bug).
fn executing_markup(text: &str) -> Option<&str> {
    first_outside_code(&EXECUTING_MARKUP, text)
}

/// A URL to another host whose query, fragment or path is filled with
/// data: a command's output, a variable, a placeholder naming data, or a
/// parameter named for a secret with a value.
fn carries_data(raw: &str) -> bool {
    let raw = raw.trim_end_matches(['.', ',', ';', ':', '!', '?', '*']);
    if loopback_url(raw) {
        return false;
    }
    let Some((_, after_host)) = raw.split_once("://").and_then(|(_, r)| {
        r.find(['/', '?', '#'])
            .map(|at| r.split_at(at))
            .or(Some((r, "")))
    }) else {
        return false;
    };
    if after_host.contains("$(") || after_host.contains("${") {
        return true;
    }
    let (path, query) = after_host
        .split_once(['?', '#'])
        .unwrap_or((after_host, ""));
    let placeholder_naming_data = |part: &str| {
        PLACEHOLDER
            .find_iter(part)
            .any(|m| DATA_WORD.is_match(m.as_str()) || m.as_str().starts_with('$'))
    };
    if placeholder_naming_data(query) || path.contains("$(") {
        return true;
    }
    // `?token=...`, `&api_key=...`: a parameter named for a secret, with a value.
    query.split(['&', ';', '#', '?']).any(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        SECRET_PARAMETER.is_match(name) && value.len() >= 4
    })
}

static SECRET_PARAMETER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:token|secret|key|api[_-]?key|apikey|access[_-]?token|auth|password|passwd|pwd|credentials?|session|cookie|ssh[_-]?key|private[_-]?key|env|data)$")
        .expect("the secret-parameter pattern compiles")
});

/// Whether every network target in `found` is this machine.
fn only_loopback(found: &str) -> bool {
    let urls: Vec<&str> = URL.find_iter(found).map(|m| m.as_str()).collect();
    if urls.is_empty() {
        return LOOPBACK_HOST.is_match(found);
    }
    urls.iter().all(|u| loopback_url(u))
}

static LOOPBACK_HOST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|[\s@/])(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1\])(?::\d+)?(?:[/\s]|$)",
    )
    .expect("the loopback pattern compiles")
});

fn loopback_url(raw: &str) -> bool {
    let Ok(url) = url::Url::parse(raw) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

const ROLE_DELIMITERS_PATTERNS: &[&str] = &[
    r"<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_turn|start_of_turn)\s*\|>",
    r"\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>",
    r"</?\s*(?:system|system[-_ ]?(?:prompt|reminder|message|instructions?)|assistant|human|user[-_ ]?(?:prompt|query|instructions?|message)|instructions|developer|tool[-_ ]?(?:result|output)|function[-_ ]?results?|important)\s*>",
    // A heading that names a role: "### (system_message)", "## [system]".
    r"(?m)(?:^|:\**)\s*(?:[-*+]\s+)?#{1,6}\s*[(\[]\s*(?:system|assistant|developer)(?:[-_ ]?(?:message|prompt))?\s*[)\]]",
    // A role label opening a line, or after a label's colon.
    r"(?m)(?:^|:\**)\s*(?:[-*+]\s+)?(?:#{1,6}\s*)?(?:system|assistant|human|developer)\s*(?:message|prompt)?\s*:",
];
static ROLE_DELIMITERS: LazyLock<Vec<Regex>> = LazyLock::new(|| compile(ROLE_DELIMITERS_PATTERNS));

/// A delimiter outside a `code span` (inside one, it is shown as quoted code).
fn role_delimiter(text: &str) -> Option<&str> {
    let spans = code_spans(text);
    ROLE_DELIMITERS
        .iter()
        .flat_map(|p| p.find_iter(text))
        .find(|m| {
            !spans
                .iter()
                .any(|s| s.start <= m.start() && m.end() <= s.end)
        })
        .map(|m| m.as_str())
}

/// Byte ranges of the inline code spans of `text`.
pub(super) fn code_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find('`').map(|o| at + o) {
        let run = text[open..].len() - text[open..].trim_start_matches('`').len();
        let fence = &text[open..open + run];
        match text[open + run..].find(fence) {
            Some(close) => {
                let end = open + run + close + run;
                spans.push(open..end);
                at = end;
            }
            None => at = open + run,
        }
    }
    spans
}

static BLOB: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/_-]{24,}={0,2}").expect("the blob pattern compiles"));
const DECODE_PATTERN: &str = r"(?i)\bbase64\s+(?:-d|--decode|-D)\b|\bb64decode\b|\batob\b|frombase64string|\bdecode[ds]?\b|\bbase64[- ]decod";
static DECODE: LazyLock<Regex> = LazyLock::new(|| pattern(DECODE_PATTERN));
static RUN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\|\s*(?:sudo\s+)?(?:sh|bash|zsh|python[0-9.]*|node|perl|iex|invoke-expression|pwsh)\b|\b(?:run|execute|eval|exec|follow|obey|invoke)\b",
    )
});

/// A base64 blob (mixed case and digits, so not a hash or a word) with
/// words to decode it and to run or follow what it says.
fn encoded_payload(text: &str) -> Option<&str> {
    if !DECODE.is_match(text) || !RUN.is_match(text) {
        return None;
    }
    BLOB.find_iter(text).map(|m| m.as_str()).find(|b| {
        b.chars().any(|c| c.is_ascii_uppercase())
            && b.chars().any(|c| c.is_ascii_lowercase())
            && b.chars().any(|c| c.is_ascii_digit())
    })
}
