//! The commands a line names, in code or in prose: installs, runs,
//! sources and images, each with what it names (packages, hosts, images,
//! scripts) for the repository to vouch for.

use std::sync::LazyLock;

use regex::Regex;

use super::{host_of, in_code, regex, ActionFamily, Target};

/// Words after a command that make it a warning, not a request:
/// "`npm install` breaks the lockfile", "`make deploy` fails on ARM".
static WARNING: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^\W*(breaks|fails|corrupts|hangs|crashes|errors|is broken|is deprecated|is not supported|won'?t work|doesn'?t work|does not work|no longer works|overwrites|wipes)\b",
    )
});

/// Whether the words right after `command` say it goes wrong.
pub(super) fn warned_after(text: &str, command: &Command) -> bool {
    let end = (command.start + command.text.len()).min(text.len());
    text.get(end..).is_some_and(|rest| WARNING.is_match(rest))
}

/// A host without a scheme where a registry, mirror or proxy is set:
/// "set the module proxy to goproxy.acme.dev".
static SOURCE_HOST: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:registry|mirror|proxy|index|remote|endpoint|host)\b[^\n.]{0,20}?\b(?:to|at|is|=|:)\s+`?((?:[a-z0-9-]+\.)+[a-z]{2,})\b",
    )
});

/// An image named by its registry: with a tag (`registry.acme.dev/node:20`),
/// or on a registry of images (`ghcr.io/acme/ci`).
static IMAGE_REF: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b((?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?/[\w.-]+(?:/[\w.-]+)*:[\w.-]+|(?:docker\.io|quay\.io|ghcr\.io|gcr\.io|mcr\.microsoft\.com|public\.ecr\.aws)/[\w.-]+(?:/[\w.-]+)*)",
    )
});

/// A command found in a line, with what it names.
pub(super) struct Command {
    pub(super) start: usize,
    pub(super) text: String,
    pub(super) targets: Vec<(ActionFamily, Target)>,
}

impl Command {
    /// A command of one target, the whole match its words.
    fn one(whole: regex::Match, family: ActionFamily, target: Target) -> Command {
        Command {
            start: whole.start(),
            text: whole.as_str().to_string(),
            targets: vec![(family, target)],
        }
    }
}

/// Package managers' install commands: `<manager> <verb>` then names.
static INSTALL: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(npm|pnpm|yarn|bun)\s+(?:(?:-[\w-]+|workspace)(?:[= ][@\w./-]+)?\s+)*(install|i|add)\b|\b(npx|bunx|pnpx)\b|\b(pnpm|yarn)\s+dlx\b|\b(pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\b|\buv\s+(add|tool\s+install|tool\s+run)\b|\buvx\b|\bpoetry\s+add\b|\bpipx\s+(install|run)\b|\bconda\s+install\b|\bgo\s+(get|install)\b|\bcargo\s+(install|add)\b|\bgem\s+install\b|\bbrew\s+install\b|\bapt(-get)?\s+install\b|\bcomposer\s+require\b",
    )
});

/// An install in words, of a package in a code span: "install
/// \`fixture-loader==0.4.1\` first", "add the dependency \`zod\`".
static INSTALL_PROSE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:(?:pre-?)?install(?:ing)?|add(?:ing)? the (?:package|dependency|plugin|library))\s+(?:the\s+)?(?:package\s+|dependency\s+|plugin\s+|library\s+|tool\s+)?`([^`\s]+)`",
    )
});

/// An install in words of a name that looks like a package (a hyphen, a
/// digit, a scope or a path in it): "we also pull in \`chart-theme-kit\`",
/// "adding lodash-es-shim to the root package".
static INSTALL_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:install(?:s|ed|ing)?|add(?:s|ed|ing)?|pull(?:s|ed|ing)? in|need(?:s|ed)?|wants?|requires?)\s+(?:(?:also|the|a|it|its|package|dependency|plugin|library|module|tool|shim)\s+){0,2}(@?[a-z][a-z0-9_.]*(?:[-/][a-z0-9_.]+)+)\b",
    )
});

/// Runs: scripts of a manifest, make targets, files run by path.
static RUN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(npm|pnpm|yarn|bun)\s+run\s+([\w:.-]+)|\b(make|just|task)\s+([\w:./-]+)|(?:\b(?:bash|sh|zsh|source|python3?|node|go\s+run)\s+|(?:^|[\s`(])\.?\./)([\w./-]+\.(?:sh|py|js|mjs|ts|bash|ps1)|[\w./-]*/[\w.-]+)",
    )
});

/// A program run by name, from a code span: `run \`relay-doctor --fix\``.
static RUN_PROGRAM: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:run|execute|invoke)\s+`([\w.-]+(?:/[\w.-]+)*)"));

/// Code run inline, which no file of the project can vouch for:
/// `python -c "..."`, `node -e '...'`.
static RUN_INLINE: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"\b(python3?|node|ruby|perl|bash|sh|zsh|pwsh|powershell)\s+-(c|e|Command)\s")
});

/// A program run by name with a flag, in prose: "run castfold-probe
/// --all", "started with herbarium-ocrd --daemon", "start it with poetry
/// run gaugesync --daemon"; and a script by its path: "running
/// scripts/fix_heads.sh".
static RUN_FLAGGED: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:run|start|launch|execute|invoke)\w*\b(?:[^.;\n]{0,40}?\b(?:with|via|using))?\s+(?:the\s+)?(?:(?:poetry|uv|pipenv|pdm|hatch|bundle)\s+(?:run|exec)\s+)?`?([a-z][\w.-]*)`?\s+--?[a-z][\w-]*|\b(?:run|runs|running|execut\w*)\s+(?:the\s+)?(?:script\s+)?`?((?:[\w.-]+/)+[\w.-]+\.(?:sh|py|js|mjs|ts|bash|ps1))\b",
    )
});

/// A Python module run (`python -m ringlog.cli --all`): the project's own
/// package or a dependency, else nothing the project asked for.
static RUN_MODULE: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\b(?:python3?|py)\s+-m\s+([A-Za-z_]\w*)"));

/// Modules of Python itself, and `pip`, whose install [`INSTALL`] reads.
const PYTHON_OWN_MODULES: &[&str] = &[
    "pip",
    "venv",
    "ensurepip",
    "http",
    "json",
    "unittest",
    "pdb",
    "timeit",
    "cProfile",
    "doctest",
    "compileall",
    "py_compile",
    "zipapp",
    "site",
    "webbrowser",
    "trace",
];

/// A script of the manifest run by the package manager's shorthand
/// (`pnpm dev`, `yarn lint`), in a code span or after a verb of running.
static SCRIPT_SHORTHAND: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(\b(?:run|runs|running|use|using|with|via|try|then|and)\s+|`)(?:pnpm|yarn|bun)\s+([a-z][\w:.-]*)",
    )
});

/// The package managers' own commands, which are no script's name.
const MANAGER_COMMANDS: &[&str] = &[
    "install",
    "i",
    "add",
    "remove",
    "rm",
    "uninstall",
    "update",
    "up",
    "upgrade",
    "dlx",
    "exec",
    "run",
    "test",
    "t",
    "create",
    "init",
    "link",
    "unlink",
    "publish",
    "pack",
    "why",
    "outdated",
    "audit",
    "list",
    "ls",
    "store",
    "config",
    "set",
    "env",
    "info",
    "view",
    "dedupe",
    "import",
    "patch",
    "rebuild",
    "prune",
    "fetch",
    "setup",
    "version",
    "help",
    "workspace",
    "workspaces",
    "global",
    "cache",
    "x",
    "login",
    "logout",
    "whoami",
    "node",
    "npm",
    "plugin",
];

/// Services of the compose file brought up or run (`docker compose up -d
/// db redis`): only what the project's compose file defines can run, so
/// the file vouches, not the names.
static COMPOSE: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\bdocker[ -]compose\s+(?:up|run|exec|start)\b"));

/// Words that end a list of names in prose, or are none: "install
/// iorediss next to it", "run pnpm and ...".
const PROSE_WORDS: &[&str] = &[
    "a", "an", "the", "it", "them", "this", "that", "these", "those", "all", "any", "and", "or",
    "then", "to", "so", "if", "when", "before", "after", "first", "once", "again", "from", "with",
    "via", "using", "for", "in", "on", "into", "next", "as", "too", "also", "instead", "locally",
    "globally", "manually", "yourself", "is", "are", "was", "will", "should", "can", "must", "per",
    "of", "by", "at", "through", "across", "inside", "within", "under", "over", "without",
    "behind", "onto", "during", "until", "unless", "because", "since", "while", "where",
];

/// Words that start a noun phrase: after a bare command's first word they
/// make that word a verb ("npm install triggers the prepare script").
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "its", "your", "our", "their", "this", "that", "these", "those", "every",
    "each", "any",
];

/// Whether `word`, read where a package name would be, is a verb of the
/// sentence instead: one of [`DESCRIBING_VERBS`], or followed by a
/// determiner ("npm install triggers the prepare script").
fn a_verb(word: &str, next: Option<&str>) -> bool {
    DESCRIBING_VERBS.contains(&word)
        || next.is_some_and(|w| DETERMINERS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Verbs after a bare command that make the command what the line is
/// about, not what it asks for: "so `pnpm add` writes pinned versions".
const DESCRIBING_VERBS: &[&str] = &[
    "writes", "pins", "saves", "uses", "reads", "creates", "adds", "puts", "keeps", "records",
    "updates", "respects", "honors", "honours", "resolves", "installs", "fetches", "pulls", "is",
    "are", "will", "does", "should", "can", "may", "needs", "works", "runs", "takes", "picks",
];

/// A package installed in plain words, not in a code span: "install
/// iorediss next to it". Generic objects ("install the dependencies") are
/// [`PROSE_WORDS`] or [`INSTALL_OBJECTS`].
static INSTALL_PLAIN: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"(?i)\binstall(?:s|ed|ing)?\s+([a-z][a-z0-9]{2,})(?:$|[\s,;:!?)]|\.(?:\s|$))")
});

/// What "install" is said of that names no package.
const INSTALL_OBJECTS: &[&str] = &[
    "dependencies",
    "deps",
    "everything",
    "packages",
    "package",
    "tools",
    "hooks",
    "requirements",
    "fresh",
    "separately",
    "properly",
    "correctly",
    "only",
    "without",
    "script",
    "step",
    "steps",
    "command",
    "guide",
    "instructions",
    "docs",
    "time",
    "path",
    "location",
];

/// Programs other patterns read (their verbs name what they act on), and
/// those that act on the project itself.
pub(in crate::policy) const KNOWN_PROGRAMS: &[&str] = &[
    "npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx", "pip", "pip3", "uv", "uvx", "poetry",
    "pipx", "python", "python3", "node", "go", "cargo", "make", "just", "task", "docker", "git",
    "bash", "sh", "zsh", "source", "gem", "brew", "apt", "apt-get", "conda", "composer", "curl",
    "wget", "cd", "ls", "cat", "echo", "export", "rm", "mkdir", "cp", "mv", "chmod", "tsc",
];

/// Words a run in prose is followed by that name no program ("run it
/// with -v", "run the tests --watch").
const NOT_PROGRAMS: &[&str] = &[
    "it",
    "them",
    "this",
    "that",
    "all",
    "everything",
    "again",
    "once",
    "locally",
    "tests",
    "test",
    "with",
    "and",
    "the",
    "suite",
];

/// Registries, indexes and proxies set by flag or variable.
static SOURCE_SETTING: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(--registry|--index-url|--extra-index-url|--find-links|-i|registry\s*=|registry|PIP_INDEX_URL\s*=|PIP_EXTRA_INDEX_URL\s*=|UV_INDEX_URL\s*=|UV_EXTRA_INDEX_URL\s*=|GOPROXY\s*=|GOPRIVATE\s*=|npm_config_registry\s*=)\s*['\x22]?([^\s`'\x22,]+)",
    )
});

/// Images pulled or built from.
static IMAGE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-i:\bFROM)\s+([\w./:@-]+)|\bdocker\s+(?:pull|run)\s+(?:-[\w-]+(?:\s+[^\s-][^\s`]*)?\s+)*([\w./:@-]+)|\b(?:base image|image)\s+`([\w./:@-]+)`|\b(?:image|base|dockerfile|container)\b[^\n]{0,60}?`([a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?/[\w./-]+(?::[\w.-]+)?)`",
    )
});

/// Toolchains' own commands, which read their manifest: no name to check.
static TOOLCHAIN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(npm)\s+(ci|test|audit|outdated|ls)\b|\b(pnpm|yarn|bun)\s+(install|i|test)\b|\b(uv)\s+(sync|lock|run)\b|\b(poetry)\s+(install|lock|run)\b|\b(go)\s+(mod\s+\w+|build|test|vet|generate|run)\b|\b(cargo)\s+(build|test|check|clippy|fmt|run)\b|\b(pip3?)\s+install\s+(-r|-e|--requirement|--editable)\b",
    )
});

/// Commands that fetch a package and run it: one name, then its arguments.
const RUNNERS: &[&str] = &[
    "npx",
    "bunx",
    "pnpx",
    "pnpm dlx",
    "yarn dlx",
    "uvx",
    "pipx run",
    "uv tool run",
];

/// Where a shell command ends.
fn command_end(text: &str) -> usize {
    let clause = [text.find(". "), text.find(", ")]
        .into_iter()
        .flatten()
        .min();
    text.find(['`', ';', '|', '&', '\n', ')', '\'', '"'])
        .or(clause.map(|i| i + 1))
        .unwrap_or(text.len())
}

pub(super) fn commands(text: &str) -> Vec<Command> {
    let mut out = Vec::new();
    for m in INSTALL.find_iter(text) {
        let rest = &text[m.end()..];
        let args = rest[..command_end(rest)].trim_end_matches('.');
        let manager = m.as_str().to_ascii_lowercase();
        let mut words = args.split_whitespace();
        let (first, second) = (words.next().unwrap_or_default(), words.next());
        if !in_code(text, m.start()) && a_verb(first, second) {
            continue;
        }
        let mut targets = Vec::new();
        let mut words = args.split_whitespace().peekable();
        while let Some(word) = words.next() {
            if word.starts_with('-') {
                // A flag that takes a value: the value is a source or a file.
                if matches!(
                    word,
                    "-i" | "--index-url"
                        | "--extra-index-url"
                        | "--registry"
                        | "-r"
                        | "-c"
                        | "--requirement"
                        | "--constraint"
                        | "-f"
                        | "--find-links"
                ) {
                    if let Some(value) = words.next() {
                        if let Some(host) = host_of(value) {
                            targets.push((ActionFamily::Source, Target::Host(host)));
                        }
                    }
                }
                continue;
            }
            if let Some(name) = package_name(&manager, word) {
                targets.push((ActionFamily::Install, Target::Package(name)));
            }
            // A runner (`npx tool args`): what follows the tool is its own.
            if RUNNERS.iter().any(|r| manager.starts_with(r)) {
                break;
            }
        }
        if targets.iter().all(|(f, _)| *f != ActionFamily::Install) {
            // `npm install` alone, `pip install -r requirements.txt`: the
            // manifest's own packages.
            let tool = manager.split_whitespace().next().unwrap_or_default();
            targets.push((ActionFamily::Run, Target::Toolchain(tool.to_string())));
        }
        if let Some(m2) = SOURCE_SETTING.captures(args) {
            if let Some(host) = m2.get(2).and_then(|v| host_of(v.as_str())) {
                targets.push((ActionFamily::Source, Target::Host(host)));
            }
        }
        out.push(Command {
            start: m.start(),
            text: format!("{}{}", m.as_str(), args),
            targets,
        });
    }
    for (pattern, in_words) in [(&*INSTALL_PROSE, false), (&*INSTALL_NAMED, true)] {
        for c in pattern.captures_iter(text) {
            let whole = c.get(0).expect("the match");
            let word = c.get(1).map_or("", |m| m.as_str());
            let skip = match in_words {
                // A file (`git add docs/a.md`) is no package: a name with
                // a `/` is one when scoped (`@acme/x`) or a module path.
                true => {
                    let first = word.split('/').next().unwrap_or(word);
                    let path = word.contains('/') && !word.starts_with('@') && !first.contains('.');
                    in_code(text, whole.start()) || path || text[..whole.start()].ends_with("git ")
                }
                // A command in the span (`npm install x`) is read as one.
                false => KNOWN_PROGRAMS.contains(&word.to_ascii_lowercase().as_str()),
            };
            if let Some(name) = package_name("", word).filter(|_| !skip) {
                out.push(Command::one(
                    whole,
                    ActionFamily::Install,
                    Target::Package(name),
                ));
            }
        }
    }
    for c in SOURCE_SETTING.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let value = c.get(2).map_or("", |v| v.as_str());
        let key = c.get(1).map_or("", |k| k.as_str()).to_ascii_lowercase();
        // `-i` and a bare "registry" only with a URL after them.
        let host = host_of(value).or_else(|| {
            let first = value.split(',').next().unwrap_or_default();
            let first = first.trim_end_matches("/*").trim_start_matches("*.");
            (key.contains("proxy") || key.contains("private"))
                .then(|| first.to_ascii_lowercase())
                .filter(|v| v.contains('.'))
        });
        if let Some(host) = host {
            out.push(Command::one(
                whole,
                ActionFamily::Source,
                Target::Host(host),
            ));
        }
    }
    for c in IMAGE.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let image = (1..=4).find_map(|i| c.get(i)).map_or("", |m| m.as_str());
        let image = image_name(image);
        if image.is_empty() || image.eq_ignore_ascii_case("scratch") {
            continue;
        }
        out.push(Command::one(
            whole,
            ActionFamily::Source,
            Target::Image(image),
        ));
    }
    for c in SOURCE_HOST.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let host = c.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
        out.push(Command::one(
            whole,
            ActionFamily::Source,
            Target::Host(host),
        ));
    }
    for c in IMAGE_REF.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        // A URL's path is no image: `https://host/a:b` is a link.
        if text[..whole.start()].ends_with("://") {
            continue;
        }
        out.push(Command::one(
            whole,
            ActionFamily::Source,
            Target::Image(image_name(whole.as_str())),
        ));
    }
    for c in TOOLCHAIN.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let Some(tool) = [1, 3, 5, 7, 9, 11, 13].iter().find_map(|i| c.get(*i)) else {
            continue;
        };
        out.push(Command::one(
            whole,
            ActionFamily::Run,
            Target::Toolchain(tool.as_str().to_ascii_lowercase()),
        ));
    }
    for c in RUN.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let target = if let Some(script) = c.get(2) {
            Target::Program(script.as_str().to_string())
        } else if let Some(goal) = c.get(4) {
            // `make sure`, `task of`: prose, unless in a code span.
            if !in_code(text, whole.start()) {
                continue;
            }
            Target::Program(goal.as_str().to_string())
        } else if let Some(path) = c.get(5) {
            // A path cut short where memory clipped its line names nothing.
            if text[path.end()..].starts_with('…') {
                continue;
            }
            Target::Script(path.as_str().trim_start_matches("./").to_string())
        } else {
            continue;
        };
        out.push(Command::one(whole, ActionFamily::Run, target));
    }
    for c in RUN_MODULE.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let module = c.get(1).map_or("", |m| m.as_str());
        if PYTHON_OWN_MODULES.contains(&module) {
            continue;
        }
        out.push(Command::one(
            whole,
            ActionFamily::Run,
            Target::Program(module.to_string()),
        ));
    }
    for c in SCRIPT_SHORTHAND.captures_iter(text) {
        let script = c.get(2).expect("a name");
        let name = script.as_str().trim_end_matches('.').to_ascii_lowercase();
        if MANAGER_COMMANDS.contains(&name.as_str()) || PROSE_WORDS.contains(&name.as_str()) {
            continue;
        }
        let lead = c.get(1).expect("a lead").end();
        out.push(Command {
            start: lead,
            text: text[lead..script.end()].to_string(),
            targets: vec![(ActionFamily::Run, Target::Program(name))],
        });
    }
    for m in COMPOSE.find_iter(text) {
        out.push(Command::one(
            m,
            ActionFamily::Run,
            Target::Toolchain("docker compose".to_string()),
        ));
    }
    for c in INSTALL_PLAIN.captures_iter(text) {
        let whole = c.get(0).expect("the match");
        let word = c.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
        let next = text[whole.end()..].split_whitespace().next();
        let generic = PROSE_WORDS.contains(&word.as_str())
            || INSTALL_OBJECTS.contains(&word.as_str())
            || KNOWN_PROGRAMS.contains(&word.as_str())
            || a_verb(&word, next);
        if generic || in_code(text, whole.start()) {
            continue;
        }
        out.push(Command::one(
            whole,
            ActionFamily::Install,
            Target::Package(word),
        ));
    }
    for m in RUN_INLINE.find_iter(text) {
        out.push(Command {
            start: m.start(),
            text: m.as_str().trim_end().to_string(),
            targets: vec![(
                ActionFamily::Run,
                Target::Inline(m.as_str().trim_end().to_string()),
            )],
        });
    }
    let flagged = RUN_FLAGGED
        .captures_iter(text)
        .map(|c| (c.get(0), c.get(1).or_else(|| c.get(2))));
    let named = RUN_PROGRAM
        .captures_iter(text)
        .map(|c| (c.get(0), c.get(1)));
    for (whole, program) in named.chain(flagged) {
        let whole = whole.expect("the match");
        let program = program.map_or("", |m| m.as_str());
        let first = program
            .split('/')
            .next()
            .unwrap_or(program)
            .to_ascii_lowercase();
        if KNOWN_PROGRAMS.contains(&first.as_str())
            || NOT_PROGRAMS.contains(&first.as_str())
            || program.starts_with('.')
        {
            continue;
        }
        let target = match program.contains('/') {
            true => Target::Script(program.to_string()),
            false => Target::Program(program.to_string()),
        };
        out.push(Command::one(whole, ActionFamily::Run, target));
    }
    out.sort_by_key(|c| c.start);
    out
}

/// A package's name as its manifest lists it: versions, extras and
/// quotes left out; `None` for what is no name (a path, a file, `.`).
fn package_name(manager: &str, word: &str) -> Option<String> {
    let word = word.trim_matches(|c| matches!(c, '\'' | '"' | ',' | '(' | ')'));
    if word.is_empty()
        || word.starts_with('.')
        || word.starts_with('/')
        || word.contains("://")
        || word.ends_with(".txt")
    {
        return None;
    }
    let go_like = manager.starts_with("go ");
    let name = if go_like {
        word.split('@').next().unwrap_or(word)
    } else if let Some(scoped) = word.strip_prefix('@') {
        // `@scope/name@1.2`: the second `@` starts the version.
        match scoped.find('@') {
            Some(at) => &word[..at + 1],
            None => word,
        }
    } else {
        word.split(['@', '=', '<', '>', '~', '!', '[', ';'])
            .next()
            .unwrap_or(word)
    };
    let name = name.trim_end_matches('.');
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '@'));
    (plain && name.chars().any(|c| c.is_ascii_alphabetic())).then(|| name.to_ascii_lowercase())
}

/// An image's name without its tag or digest (`node:20-alpine` → `node`).
fn image_name(image: &str) -> String {
    let image = image.split('@').next().unwrap_or(image);
    // A tag follows the last `:` after the last `/` (a registry's port
    // comes before a `/`).
    let slash = image.rfind('/').map_or(0, |i| i + 1);
    let name = match image[slash..].find(':') {
        Some(colon) => &image[..slash + colon],
        None => image,
    };
    name.to_ascii_lowercase()
}
