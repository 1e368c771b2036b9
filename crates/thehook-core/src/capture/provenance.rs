//! Where each distilled line came from, read off the transcript rather than
//! the line: the person's words, what the agent found in the project (the
//! results of its reads, runs and edits there), or what a tool brought in
//! from outside it: a fetched page, a web search, an MCP server, a file
//! outside the project or in a dependency folder, a command that downloads.
//!
//! The agent's own text is no source: it says what it found or what it was
//! told, and a line it repeats from a page is the page's. A line is *from
//! outside* when one outside result holds most of its words, and what it
//! names (a package, a host, a version, a flag: `corroborate::named_words`) comes from
//! nowhere else: not from anything the person said in the session, nor
//! from what the project's files showed when the agent read or searched
//! them, nor from what the agent ran or wrote before that page was read
//! (what it did after may be the page's doing), nor from the checkout (a
//! path of the project is the project's, whoever named it first). A call
//! that failed or was refused returns the agent's own words: no source.
//! A line that names nothing must be nearly all the page's, in 6 words or
//! more, 3 of them from nowhere else. The summary lines thehook writes from
//! the transcript's facts (what was asked, changed, run) and the files and
//! branch it appends are not judged. Such a line is
//! marked in the session file ([`crate::store::outside`]) and withheld
//! from agents until a person confirms it, unless the repository vouches
//! for the action it names (`policy/verify.rs`).

use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::Path;

use crate::capture::extract::{Distilled, FACT_LABELS};
use crate::capture::paths;
use crate::policy::corroborate::named_words;
use crate::store::outside;
use crate::text::analysis::lexical::Analyzer;
use crate::transcript::{path_argument, Block, Role, ToolCall, ToolRole, ToolShape, Transcript};

/// Share of a line's words one outside result must hold.
const HELD: f32 = 0.5;
/// Words of a line that names nothing that only the outside result
/// holds, at least (a line that names something: one of its names).
const ONLY_THERE: usize = 3;
/// A line that names nothing: its words at least, and the share of them
/// the outside result must hold.
const UNNAMED_WORDS: usize = 6;
const UNNAMED_HELD: f32 = 0.8;
/// A line of fewer words tells too little to say where it came from.
const FEWEST_WORDS: usize = 3;

/// Folders whose files are other people's code, even inside the project.
const DEPENDENCY_FOLDERS: [&str; 9] = [
    "node_modules",
    "vendor",
    "site-packages",
    "dist-packages",
    ".venv",
    "venv",
    "bower_components",
    ".cargo",
    "pkg/mod",
];

/// Who said a span of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Said {
    User,
    /// What the agent did in the project and what came of it: counted
    /// only before a page was read (what it did after may be the page's
    /// doing).
    Project,
    /// What the project's files hold, as a read or a search showed it:
    /// counted whenever it was read.
    ProjectHolds,
    /// The tool and what it read.
    Outside(String),
}

struct Span {
    said: Said,
    text: String,
    /// Read when first asked for: the project's own results, most of a
    /// long transcript, are read only when a line is held by a page.
    terms: OnceCell<HashSet<String>>,
}

impl Span {
    fn terms(&self) -> &HashSet<String> {
        self.terms
            .get_or_init(|| terms(&Analyzer::default(), &self.text))
    }
}

/// Marks the items of `distilled` that only an outside source said; says
/// how many it marked. A transcript with no outside result costs nothing.
pub(crate) fn mark_outside(distilled: &mut Distilled, t: &Transcript, root: &Path) -> usize {
    let spans = spans(t);
    if !spans.iter().any(|s| matches!(s.said, Said::Outside(_))) {
        return 0;
    }
    let analyzer = Analyzer::default();
    // The person's words, and the session's own branch: not a page's.
    let branch = terms(&analyzer, t.git_branch.as_deref().unwrap_or_default());
    let user: HashSet<&String> = spans
        .iter()
        .filter(|s| s.said == Said::User)
        .flat_map(|s| s.terms())
        .chain(&branch)
        .collect();
    let mut marked = 0;
    let mut judge = |line: &mut String, also: &str| {
        let text = format!("{}\n{also}", without_facts(line));
        let words = terms(&analyzer, &text);
        // A path of the project is the project's, whoever named it first.
        let names: Vec<&str> = named_words(&text)
            .into_iter()
            .filter(|n| !(n.contains('/') || n.contains('.')) || !root.join(n).exists())
            .collect();
        let named = terms(&analyzer, &names.join(" "));
        if let Some(source) = told(&words, &named, &spans, &user) {
            *line = outside::mark(line, &source);
            marked += 1;
        }
    };
    // The summary's facts were read off the transcript by thehook (what
    // was asked, changed, run, hit), not said by anyone.
    let said = |line: &&mut String| !FACT_LABELS.iter().any(|f| line.starts_with(f));
    for line in distilled
        .summary
        .iter_mut()
        .filter(said)
        .chain(distilled.conventions.iter_mut())
        .chain(distilled.gotchas.iter_mut())
    {
        judge(line, "");
    }
    for decision in &mut distilled.decisions {
        let details = decision.details.join("\n");
        judge(&mut decision.text, &details);
    }
    marked
}

/// `line` without what the capture adds to it from the session's facts: the
/// files it changed, the branch it ran on.
fn without_facts(line: &str) -> &str {
    let line = line.trim_end();
    for tail in [" (files: ", " (branch "] {
        if line.ends_with(')') {
            if let Some(at) = line.rfind(tail) {
                return &line[..at];
            }
        }
    }
    line
}

/// The outside source that alone says most of `words`, and what the line
/// names (`named`, among `words`), if one does.
fn told(
    words: &HashSet<String>,
    named: &HashSet<String>,
    spans: &[Span],
    user: &HashSet<&String>,
) -> Option<String> {
    if words.len() < FEWEST_WORDS {
        return None;
    }
    let held = |s: &Span| words.intersection(s.terms()).count();
    let (at, span) = spans
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.said, Said::Outside(_)))
        .max_by_key(|(at, s)| (held(s), std::cmp::Reverse(*at)))?;
    if (held(span) as f32) < HELD * words.len() as f32 {
        return None;
    }
    let said_by_user = words.iter().filter(|w| user.contains(w)).count();
    if said_by_user as f32 >= HELD * words.len() as f32 {
        return None;
    }
    let before = spans[..at].iter().filter(|s| s.said == Said::Project);
    let found_before: HashSet<&String> = spans
        .iter()
        .filter(|s| s.said == Said::ProjectHolds)
        .chain(before)
        .flat_map(|s| s.terms())
        .collect();
    let only_there = |of: &HashSet<String>| {
        of.intersection(span.terms())
            .filter(|w| !user.contains(w) && !found_before.contains(w))
            .count()
    };
    // A line that names nothing is a page's only when the page says
    // nearly all of it, in many words.
    let alone = match named.is_empty() {
        true => {
            words.len() >= UNNAMED_WORDS
                && held(span) as f32 >= UNNAMED_HELD * words.len() as f32
                && only_there(words) >= ONLY_THERE
        }
        false => only_there(named) >= 1,
    };
    match &span.said {
        Said::Outside(source) if alone => Some(source.clone()),
        _ => None,
    }
}

/// The transcript's spans in order, subagents' after the main thread's.
fn spans(t: &Transcript) -> Vec<Span> {
    let cwd = t.cwd.as_deref();
    let mut out = Vec::new();
    let entries = t
        .entries
        .iter()
        .chain(t.subagents.iter().flat_map(|s| s.entries.iter()));
    for entry in entries {
        for block in &entry.blocks {
            let (said, text) = match (entry.role, block) {
                (Role::User, Block::Text { text }) => (Said::User, text.clone()),
                (_, Block::ToolCall(call)) => {
                    let result = call.result.as_ref().map_or("", |r| r.text.as_str());
                    // A call that failed or that the person refused
                    // returns the agent's own words, not the source's.
                    let failed = call.result.as_ref().is_some_and(|r| r.is_error);
                    match outside_source(call, cwd).filter(|_| !failed) {
                        Some(source) => (Said::Outside(source), result.to_string()),
                        None if call.kind.role == ToolRole::Looks => {
                            (Said::ProjectHolds, format!("{}\n{result}", call.input))
                        }
                        // What the agent wrote or ran is the project's too.
                        None => (Said::Project, format!("{}\n{result}", call.input)),
                    }
                }
                (_, Block::ToolResult { result, .. }) => (Said::Project, result.text.clone()),
                _ => continue,
            };
            out.push(Span {
                said,
                text,
                terms: OnceCell::new(),
            });
        }
    }
    out
}

fn terms(analyzer: &Analyzer, text: &str) -> HashSet<String> {
    analyzer
        .terms(text)
        .into_iter()
        .filter(|w| w.chars().count() >= 3)
        .collect()
}

/// The tool and target of a call that read from outside the project.
/// The agents name their web tools in many ways (`WebFetch`, `web_fetch`,
/// `google_web_search`, `webfetch`), so the name decides.
fn outside_source(call: &ToolCall, cwd: Option<&str>) -> Option<String> {
    let name: String = call
        .name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let arg = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| call.input.get(*k)?.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    if call.name.starts_with("mcp__") || call.name.starts_with("mcp_") {
        return Some(call.name.clone());
    }
    if name.contains("web") || name.contains("fetch") || name.contains("browse") {
        let target = arg(&["url", "query", "prompt", "q"]);
        return Some(format!("{} {target}", call.name).trim().to_string());
    }
    match call.kind.shape {
        ToolShape::Read => {
            let path = path_argument(&call.input)?;
            outside_file(&path, cwd).map(|f| format!("{} {f}", call.name))
        }
        ToolShape::Shell => {
            let command = arg(&["command", "cmd"]);
            let command = match &call.input {
                serde_json::Value::String(s) if command.is_empty() => s.clone(),
                serde_json::Value::Array(parts) if command.is_empty() => parts
                    .iter()
                    .filter_map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => command,
            };
            downloads(&command).map(|what| format!("{} {what}", call.name))
        }
        _ => None,
    }
}

/// A file outside the project, or in a dependency folder, as the mark may
/// name it: never a home folder (only the file's name is kept).
fn outside_file(path: &str, cwd: Option<&str>) -> Option<String> {
    let inside = match cwd {
        Some(cwd) => !path.starts_with('/') || path.starts_with(cwd.trim_end_matches('/')),
        None => !path.starts_with('/'),
    };
    if !inside {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        return Some(format!("a file outside the project, {name}"));
    }
    let relative = paths::scrub(path, cwd);
    let in_dependency = DEPENDENCY_FOLDERS
        .iter()
        .any(|d| relative.split('/').any(|p| p == *d) || relative.contains(&format!("/{d}/")));
    in_dependency.then_some(relative)
}

/// What a shell command downloads: its first URL not on this machine, or
/// the GitHub CLI reading an issue or a pull request others wrote.
fn downloads(command: &str) -> Option<String> {
    let url = command
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'']))
        .find(|w| w.starts_with("http://") || w.starts_with("https://"));
    if let Some(url) = url {
        let local = ["//localhost", "//127.0.0.1", "//0.0.0.0", "//[::1]"]
            .iter()
            .any(|l| url.contains(l));
        return (!local).then(|| url.to_string());
    }
    let gh = ["gh issue view", "gh pr view", "gh api", "gh search"];
    gh.iter()
        .find(|g| command.contains(*g))
        .map(|g| g.to_string())
}

#[cfg(test)]
mod tests;
