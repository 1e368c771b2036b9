//! The prompt hook: at each prompt, the memory relevant to it that this
//! session was not given yet, or nothing. Session start knew only the
//! branch and the files; the prompt says what the work is, so this is where
//! memory from far back is found.
//!
//! It must cost nothing (p50 <= 60 ms at 10,000 items), so like session
//! start it never loads the model: items are found by their words (BM25),
//! by the paths the prompt names, and by the files in play. An item must
//! clear a floor of relevance to be given: a prompt about nothing memory
//! knows adds nothing.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use crate::agents::{Agent, HookPayload};
use crate::capture::transcript::clip_chars;
use crate::error::Result;
use crate::inject::context::Context;
use crate::inject::given::Given;
use crate::memory::embed::SearchPaths;
use crate::memory::index::Filter;
use crate::memory::item::Item;
use crate::memory::Memory;
use crate::project::Project;

/// At most this many characters are added at one prompt.
pub const MAX_CHARS: usize = 1_500;
/// At most this many items.
const MAX_ITEMS: usize = 5;
/// Lexical candidates considered.
const POOL: usize = 40;
/// Characters of the prompt searched with.
const MAX_QUERY_CHARS: usize = 2_000;
/// An item must share at least this many distinct terms with the prompt...
const MIN_SHARED_TERMS: usize = 2;
/// ...and score at least this share of the best item's score.
const FLOOR_SHARE: f32 = 0.5;
/// An item of a session that changed a file the prompt names, or a file in
/// play, counts for this much more.
const NAMED_FILE_BOOST: f32 = 1.0;
const IN_PLAY_BOOST: f32 = 0.25;
/// Characters kept of one item.
const MAX_ITEM_CHARS: usize = 300;

/// Claude Code's prompt sources that no person typed (a wake-up, a
/// scheduled or system prompt): nothing new to search for.
const NOT_TYPED: [&str; 4] = ["system", "loop_wakeup", "schedule_wakeup", "poll_event"];

/// The heading of what the prompt hook adds.
const HEADING: &str = "# Project memory (thehook): earlier work on what this prompt is about";

/// What the hook decided.
#[derive(Debug, Clone, Default)]
pub struct Prompted {
    /// The JSON to print, if any.
    pub output: Option<Value>,
    /// One line for the hook log.
    pub log: String,
    /// The project, when it has memory.
    pub project: Option<std::path::PathBuf>,
}

/// Answers a prompt payload.
pub fn on_prompt(
    stdin: &str,
    declared: Option<Agent>,
    cwd: &Path,
    paths: &SearchPaths,
) -> Result<Prompted> {
    let payload = match HookPayload::parse(stdin, declared) {
        Ok(p) => p,
        Err(why) => {
            return Ok(Prompted {
                log: format!("prompt: ignored the payload: {why}"),
                ..Prompted::default()
            })
        }
    };
    let said = |log: String| {
        Ok(Prompted {
            log,
            ..Prompted::default()
        })
    };
    let Some(prompt) = payload.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
        return said("prompt: the payload has no prompt".into());
    };
    if let Some(source) = payload
        .source
        .as_deref()
        .filter(|s| NOT_TYPED.contains(s))
    {
        return said(format!("prompt: not typed by a person (source `{source}`)"));
    }
    let start = payload.cwd.clone().unwrap_or_else(|| cwd.to_path_buf());
    let project = Project::discover(&start);
    if !project.check_layout()? {
        return said(format!(
            "prompt: no .thehook/ at {}",
            project.root().display()
        ));
    }
    let mut memory = Memory::open(project.root(), paths, false)?;
    if !memory.config().retrieval.on_prompt {
        return said("prompt: retrieval.on_prompt is off".into());
    }
    memory.sync_deferring_embeddings()?;
    let given = payload
        .session_id
        .as_deref()
        .map(|id| Given::of(&project, id));
    let already = given.as_ref().map(Given::load).unwrap_or_default();
    let context = Context::of(project.root());
    let found = relevant(&memory, prompt, &context, &already)?;
    let lines = fit(&found);
    if lines.is_empty() {
        return said(format!(
            "prompt: {}: nothing new cleared the floor ({} candidates)",
            payload.agent,
            found.len()
        ));
    }
    if let Some(given) = &given {
        let cited: Vec<&str> = lines.iter().map(|(_, c)| c.as_str()).collect();
        given.add(&cited)?;
    }
    let mut text = String::from(HEADING);
    for (line, _) in &lines {
        text.push('\n');
        text.push_str(line);
    }
    Ok(Prompted {
        project: Some(project.root().to_path_buf()),
        log: format!(
            "prompt: {}: {} items, {} chars",
            payload.agent,
            lines.len(),
            text.len()
        ),
        output: payload.agent.spec().prompt_output(&text),
    })
}

/// Items relevant to `prompt`, best first, none of them given already.
fn relevant(
    memory: &Memory,
    prompt: &str,
    context: &Context,
    already: &HashSet<String>,
) -> Result<Vec<Item>> {
    let query = clip_chars(prompt, MAX_QUERY_CHARS);
    let analyzer = memory.analyzer();
    let query_terms: HashSet<String> = analyzer.terms(&query).into_iter().collect();
    let candidates = memory
        .index()
        .candidates(&query, None, POOL, &Filter::default())?
        .lexical;
    let Some(best) = candidates.first().map(|(_, s)| *s) else {
        return Ok(Vec::new());
    };
    // Sessions by file: which changed a file the prompt names, or one in play.
    let sessions = memory.index().sessions()?;
    let named: Vec<&str> = named_files(prompt);
    let in_play: HashSet<&str> = context.changed_files.iter().map(String::as_str).collect();
    let boost: HashMap<&str, f32> = sessions
        .iter()
        .filter_map(|s| {
            let names = s
                .files
                .iter()
                .any(|f| named.iter().any(|n| f.ends_with(n)));
            let plays = s.files.iter().any(|f| in_play.contains(f.as_str()));
            let b = if names { NAMED_FILE_BOOST } else { 0.0 }
                + if plays { IN_PLAY_BOOST } else { 0.0 };
            (b > 0.0).then_some((s.path.as_str(), b))
        })
        .collect();
    let mut scored: Vec<(f32, Item)> = candidates
        .into_iter()
        .filter(|(item, score)| {
            let shared: HashSet<String> = analyzer
                .terms(&item.text)
                .into_iter()
                .filter(|t| query_terms.contains(t))
                .collect();
            shared.len() >= MIN_SHARED_TERMS.min(query_terms.len())
                && *score >= FLOOR_SHARE * best
                && !already.contains(&item.citation())
        })
        .map(|(item, score)| {
            let b = boost.get(item.path.as_str()).copied().unwrap_or(0.0);
            (score / best * (1.0 + b), item)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    // One item per file: the prompt gets several pieces of earlier work
    // rather than several lines of one.
    let mut files = HashSet::new();
    Ok(scored
        .into_iter()
        .map(|(_, item)| item)
        .filter(|item| files.insert(item.path.clone()))
        .collect())
}

/// The lines to add, with their citations, within [`MAX_CHARS`].
fn fit(items: &[Item]) -> Vec<(String, String)> {
    let mut used = HEADING.len();
    let mut out = Vec::new();
    for item in items.iter().take(MAX_ITEMS) {
        let text = crate::memory::item::normalise(&item.text);
        let day = item.date.get(..10).unwrap_or_default();
        let line = format!(
            "- {}, {day} ({})",
            clip_chars(&text, MAX_ITEM_CHARS),
            item.citation()
        );
        if used + line.len() + 1 > MAX_CHARS {
            continue;
        }
        used += line.len() + 1;
        out.push((line, item.citation()));
    }
    out
}

/// File names the prompt mentions (`src/auth.rs`, `parse.rs`): words with a
/// dot or a slash and no spaces.
fn named_files(prompt: &str) -> Vec<&str> {
    prompt
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | '(' | ')' | ','))
        .map(|w| w.trim_end_matches(['.', ':', ';', '?', '!']))
        .filter(|w| {
            let has_ext = w
                .rsplit_once('.')
                .is_some_and(|(stem, ext)| !stem.is_empty() && (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric()));
            w.len() > 3 && (has_ext || w.contains('/')) && !w.starts_with("http")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_a_prompt_names_are_found() {
        assert_eq!(
            named_files("Fix the bug in `src/auth.rs` and parse.rs, see https://x.io/a.md. Thanks."),
            ["src/auth.rs", "parse.rs"]
        );
        assert!(named_files("why is it slow? e.g. no idea").is_empty());
    }
}
