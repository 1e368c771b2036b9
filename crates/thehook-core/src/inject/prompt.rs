//! The prompt hook: at each prompt, the memory relevant to it that this
//! session was not given yet, or nothing. Session start knew only the
//! branch and the files; the prompt says what the work is, so this is where
//! memory from far back is found.
//!
//! It must cost nothing (p50 <= 60 ms at 10,000 items), so like session
//! start it never loads the model: sessions are found by the files the
//! prompt names, items by their words (BM25), ranked up by those files and
//! the files in play. An item must clear a floor of relevance to be given:
//! a prompt about nothing memory knows adds nothing.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use crate::agents::HookPayload;
use crate::error::Result;
use crate::given::handed::Handed;
use crate::given::{Given, Hook, FILE_MARK};
use crate::inject::file;
use crate::inject::git_context::GitContext;
use crate::inject::left_off::{self, RARE_FILE_SHARE};
use crate::inject::Added;
use crate::memory::index::Filter;
use crate::memory::rank::tally::TallyFile;
use crate::memory::session::SessionRecord;
use crate::memory::session_lookup::{
    name_terms, SessionKey, SessionLookup, SessionsByAge, SessionsByFile,
};
use crate::memory::Memory;
use crate::model::SearchPaths;
use crate::project::Project;
use crate::store::item::{Item, ItemKind};
use crate::text::clip_chars;

/// At most this many characters are added at one prompt.
pub const MAX_CHARS: usize = 1_500;
/// At most this many items. On the replayed histories' tuning half, a
/// prompt's fourth and fifth lines named sessions the work needed less
/// often than the first three (5 lines: precision 1.44x the 5 latest
/// sessions', 3: 1.46x; the same hits).
const MAX_ITEMS: usize = 3;
/// Lexical candidates considered.
const POOL: usize = 40;
/// Characters of the prompt searched with.
const MAX_QUERY_CHARS: usize = 2_000;
/// An item must share at least this many distinct terms with the prompt
/// (a session's own summary line, one more: what an earlier session was
/// asked shares two words with most prompts)...
const MIN_SHARED_TERMS: usize = 2;
const MIN_SHARED_TERMS_SUMMARY: usize = 3;
/// ...and score at least this share of the best item's score.
const FLOOR_SHARE: f32 = 0.5;
/// An item of a session that changed a file the prompt names, or a file in
/// play, counts for this much more.
const NAMED_FILE_BOOST: f32 = 1.0;
const IN_PLAY_BOOST: f32 = 0.25;
/// Characters kept of one item.
const MAX_ITEM_CHARS: usize = 300;
/// At most this many sessions found by a file the prompt names.
const NAMED_FILE_SESSIONS: usize = 2;
/// At most this many sessions found by a file whose name the prompt says.
const FILE_WORD_SESSIONS: usize = 2;

/// At most this many files named with `@` are answered at one prompt.
const MAX_MENTIONED: usize = 3;

/// Claude Code's prompt sources that no person typed (a wake-up, a
/// scheduled or system prompt): nothing new to search for.
const NOT_TYPED: [&str; 4] = ["system", "loop_wakeup", "schedule_wakeup", "poll_event"];

/// The heading of what the prompt hook adds.
const HEADING: &str = "# Project memory (thehook): earlier work on what this prompt is about";

/// Answers a prompt payload in `project`, which has memory (the hook
/// protocol, `crate::hook`, checked).
pub(crate) fn on_prompt(
    payload: &HookPayload,
    project: &Project,
    paths: &SearchPaths,
) -> Result<Added> {
    let said = |log: String| Ok(Added::nothing(log));
    let Some(prompt) = payload.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
        return said("the payload has no prompt".into());
    };
    if !payload.agent.description().protocol.prompt.adds_context() {
        return said(format!("{} cannot add context at a prompt", payload.agent));
    }
    if let Some(source) = payload.source.as_deref().filter(|s| NOT_TYPED.contains(s)) {
        return said(format!("not typed by a person (source `{source}`)"));
    }
    let mut notes = String::new();
    // The task of a subagent it starts, where the agent says none.
    if let (Some(id), None) = (payload.session_id.as_deref(), &payload.subagent) {
        if let Err(e) = Handed::of(project, id).prompted(prompt) {
            notes += &format!("; could not keep the prompt for its subagents: {e}");
        }
    }
    let mut memory = Memory::open(project, paths, false)?;
    if !memory.config().retrieval.on_prompt {
        return said("retrieval.on_prompt is off".into());
    }
    let context = GitContext::cached(project);
    notes += &super::sync_for_hook(&mut memory, &super::focus_of(&context))?;
    let given = Given::of_payload(project, payload);
    let mut already = given.as_ref().map(Given::load).unwrap_or_default();
    // Files named with `@`, which the agent reads without a tool call
    // (Claude Code), so the file hook never hears of them: answered here,
    // once each, as the file hook would.
    let mut text = String::new();
    let mut told = 0;
    let current = payload.session_id.as_deref();
    for rel in mentioned_files(prompt, project, payload.cwd.as_deref()) {
        let mark = format!("{FILE_MARK}{rel}");
        if told == MAX_MENTIONED || already.contains(&mark) {
            continue;
        }
        let lines = file::lines_about(&mut memory, &rel, current, &already)?;
        if lines.is_empty() {
            continue;
        }
        told += 1;
        already.insert(mark);
        already.extend(lines.iter().map(|(_, cited)| cited.clone()));
        if let Some(given) = &given {
            let cited: Vec<&str> = lines.iter().map(|(_, cited)| cited.as_str()).collect();
            notes += &given.record(&Hook::File { path: rel.clone() }, &cited);
        }
        text += &file::block(&rel, &lines);
        text.push_str("\n\n");
    }
    // What agents used of what they were given ranks it up or down.
    let tally = TallyFile::load(project);
    let mut found = relevant(&memory, prompt, &context, &already, &tally)?;
    // A session file edited in place since the last sync: found again.
    let cited: Vec<String> = fit(&found, MAX_ITEMS)
        .iter()
        .map(|f| f.cited.clone())
        .collect();
    if super::recheck_for_hook(&mut memory, &cited)? {
        found = relevant(&memory, prompt, &context, &already, &tally)?;
    }
    let lines = fit(&found, MAX_ITEMS);
    if lines.is_empty() && told == 0 {
        return said(format!(
            "{}: nothing new cleared the floor{notes}",
            payload.agent
        ));
    }
    if let Some(given) = &given {
        let cited: Vec<&str> = lines.iter().map(|f| f.cited.as_str()).collect();
        notes += &given.record(&Hook::Prompt, &cited);
    }
    if !lines.is_empty() {
        text += &block(HEADING, &lines);
    }
    let text = text.trim_end().to_string();
    let files = if told > 0 {
        format!(", {told} files named with @")
    } else {
        String::new()
    };
    Ok(Added {
        log: format!(
            "{}: {} items{files}, {} chars{notes}",
            payload.agent,
            lines.len(),
            text.len()
        ),
        output: payload.agent.description().protocol.prompt.with(&text),
    })
}

/// The text added under `heading`: the heading, the line that says memory
/// is data, the lines.
pub(crate) fn block(heading: &str, lines: &[&Found]) -> String {
    let mut text = format!("{heading}\n{}", crate::text::MEMORY_IS_DATA);
    for found in lines {
        text.push('\n');
        text.push_str(&found.line);
    }
    text
}

/// The project files a prompt names with `@` (`@src/a.rs`, `@"my file.md"`,
/// `@src/a.rs#L10-20`, `@./a.rs`), relative to the project root, that exist
/// and are not memory itself, in the order named, each once.
fn mentioned_files(prompt: &str, project: &Project, cwd: Option<&Path>) -> Vec<String> {
    let cwd = cwd.unwrap_or(project.root());
    let mut files: Vec<String> = Vec::new();
    for mention in mentions(prompt) {
        let Some(rel) = file::relative(project.root(), cwd, Path::new(mention)) else {
            continue;
        };
        let is_file = project.root().join(&rel).is_file();
        if is_file && !rel.starts_with(".thehook/") && !files.contains(&rel) {
            files.push(rel);
        }
    }
    files
}

/// What follows each `@` that starts a word: a quoted path, or the word up
/// to a space, with a line range (`#L10-20`) and trailing punctuation cut.
fn mentions(prompt: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = prompt;
    while let Some(at) = rest.find('@') {
        let starts_word = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | '"' | '\''));
        let after = &rest[at + 1..];
        rest = after;
        if !starts_word {
            continue;
        }
        let path = match after.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or_default(),
            None => {
                let word = after.split(char::is_whitespace).next().unwrap_or_default();
                let word = word.split('#').next().unwrap_or_default();
                word.trim_end_matches([',', '.', ':', ';', '?', '!', ')', ']', '\'', '"'])
            }
        };
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

/// One thing to add: its line and the citation it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) line: String,
    pub(crate) cited: String,
}

/// What is relevant to `prompt`, best first, none of it given already:
/// first the sessions that changed a file the prompt names (newest first),
/// then items found by the prompt's words. One per file: the prompt gets
/// several pieces of earlier work rather than several lines of one.
pub(crate) fn relevant(
    memory: &Memory,
    prompt: &str,
    context: &GitContext,
    already: &HashSet<String>,
    tally: &TallyFile,
) -> Result<Vec<Found>> {
    let sessions = memory.index().session_lookup()?;
    let named = files_named(&sessions, &named_files(prompt))?;
    let mut files: HashSet<String> = HashSet::new();
    let mut found: Vec<Found> = Vec::new();
    let on_words = by_file_words(memory, &sessions, prompt, tally)?;
    let sessions_found = newest_not_given(&sessions, &named, NAMED_FILE_SESSIONS, already)?
        .into_iter()
        .chain(first_not_given(
            &sessions,
            on_words,
            FILE_WORD_SESSIONS,
            already,
        )?);
    for s in sessions_found {
        if files.insert(s.path.clone()) {
            found.push(Found {
                line: left_off::line(&s),
                cited: s.citation(),
            });
        }
    }
    let in_play = &context.changed_files;
    for item in by_words(memory, &sessions, prompt, &named, in_play, already, tally)? {
        if files.insert(item.path.clone()) {
            found.push(Found {
                line: crate::inject::block::cited_line(&item, true, MAX_ITEM_CHARS),
                cited: item.citation(),
            });
        }
    }
    Ok(found)
}

/// The files sessions changed that the prompt names (`named`: the same
/// path, or a path ending in it at a folder boundary).
fn files_named(sessions: &impl SessionsByFile, named: &[&str]) -> Result<Vec<String>> {
    let mut files = Vec::new();
    for n in named {
        let n = n.trim_start_matches("./");
        files.extend(sessions.files_ending(n)?.into_iter().map(|f| f.path));
    }
    Ok(files)
}

/// The records of the `n` newest sessions that changed any of `files`
/// and were not given to this one already: read from the newest on, only
/// as far as that takes.
fn newest_not_given(
    sessions: &impl SessionLookup,
    files: &[String],
    n: usize,
    already: &HashSet<String>,
) -> Result<Vec<SessionRecord>> {
    let mut out = Vec::with_capacity(n);
    if n == 0 || files.is_empty() {
        return Ok(out);
    }
    sessions.newest_touching(files, &mut |path| {
        out.extend(
            sessions
                .record(path)?
                .filter(|s| !already.contains(&s.citation())),
        );
        Ok(out.len() < n)
    })?;
    Ok(out)
}

/// The records of the first `n` of `paths` whose session was not given
/// to this one already.
fn first_not_given(
    sessions: &impl SessionsByAge,
    paths: Vec<String>,
    n: usize,
    already: &HashSet<String>,
) -> Result<Vec<SessionRecord>> {
    let mut out = Vec::with_capacity(n);
    for path in paths {
        if out.len() >= n {
            break;
        }
        out.extend(
            sessions
                .record(&path)?
                .filter(|s| !already.contains(&s.citation())),
        );
    }
    Ok(out)
}

/// Sessions that changed a file whose name the prompt says in words ("the
/// rewind command" and `cmd/rewind.go`, "manual commit hooks" and
/// `manual_commit_hooks.go`): every word of the file's name is in the
/// prompt, and few sessions touched it (a file everyone touches says
/// nothing). Best first: the rarer the files, the more of them, the newer.
pub(crate) fn by_file_words(
    memory: &Memory,
    sessions: &impl SessionLookup,
    prompt: &str,
    tally: &TallyFile,
) -> Result<Vec<String>> {
    let analyzer = memory.analyzer();
    let words: HashSet<String> = analyzer.terms(prompt).into_iter().collect();
    let total = sessions.count(None)?;
    let most = ((total as f32 * RARE_FILE_SHARE).ceil() as usize).max(1);
    let mut said: BTreeMap<String, f32> = BTreeMap::new();
    for word in &words {
        for file in sessions.files_named_with(word)? {
            let terms = name_terms(analyzer, &file.path);
            let all_said = !terms.is_empty() && terms.iter().all(|t| words.contains(t));
            if file.sessions <= most && all_said {
                said.insert(file.path, left_off::rarity(total, file.sessions));
            }
        }
    }
    let mut scores: HashMap<String, f32> = HashMap::new();
    // In file order, so that the sums do not depend on the order found.
    for (file, rarity) in &said {
        for session in sessions.touching(file)? {
            *scores.entry(session).or_default() += rarity;
        }
    }
    for (session, score) in scores.iter_mut() {
        *score *= tally.file(session).weight();
    }
    let wanted: HashSet<String> = scores.keys().cloned().collect();
    let mut scored: Vec<(f32, SessionKey)> = sessions
        .keys(&wanted)?
        .into_iter()
        .map(|key| (scores[&key.path], key))
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| b.1.date.cmp(&a.1.date))
            .then_with(|| a.1.path.cmp(&b.1.path))
    });
    Ok(scored.into_iter().map(|(_, key)| key.path).collect())
}

/// Items that share the prompt's words, above the floor, best first.
fn by_words(
    memory: &Memory,
    sessions: &impl SessionsByFile,
    prompt: &str,
    named: &[String],
    in_play: &[String],
    already: &HashSet<String>,
    tally: &TallyFile,
) -> Result<Vec<Item>> {
    let query = clip_chars(prompt, MAX_QUERY_CHARS);
    let query_terms = memory.index().query_terms(&query);
    let matches = memory
        .index()
        .words_shared(&query_terms, POOL, &Filter::for_agents())?;
    let Some(best) = matches.first().map(|m| m.score) else {
        return Ok(Vec::new());
    };
    let candidates: Vec<(Item, f32)> = matches
        .into_iter()
        .filter(|m| {
            let least = match m.item.kind {
                ItemKind::Summary => MIN_SHARED_TERMS_SUMMARY,
                _ => MIN_SHARED_TERMS,
            };
            m.shared_terms >= least.min(query_terms.len())
                && m.score >= FLOOR_SHARE * best
                && !already.contains(&m.item.citation())
        })
        .map(|m| (m.item, m.score))
        .collect();
    // Of the sessions these come from, those on a file the prompt names
    // or one in play: asked of each, not read for every session on them.
    let from: HashSet<String> = candidates.iter().map(|(i, _)| i.path.clone()).collect();
    let on_named = sessions.which_changed(&from, named)?;
    let in_play = sessions.which_changed(&from, in_play)?;
    // Items of sessions on a file the prompt names, or on one in play, rank higher.
    let boost = |path: &str| {
        let names = if on_named.contains(path) {
            NAMED_FILE_BOOST
        } else {
            0.0
        };
        let plays = if in_play.contains(path) {
            IN_PLAY_BOOST
        } else {
            0.0
        };
        names + plays
    };
    let mut scored: Vec<(f32, Item)> = candidates
        .into_iter()
        .map(|(item, score)| {
            let b = boost(&item.path);
            let used = tally.line(&item.citation()).weight();
            (score / best * (1.0 + b) * used, item)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(scored.into_iter().map(|(_, item)| item).collect())
}

/// The lines to add, at most `max_items`, with their citations, within
/// [`MAX_CHARS`].
pub(crate) fn fit(found: &[Found], max_items: usize) -> Vec<&Found> {
    let mut used = HEADING.len();
    let mut out = Vec::new();
    for f in found.iter().take(max_items) {
        if used + f.line.len() + 1 > MAX_CHARS {
            continue;
        }
        used += f.line.len() + 1;
        out.push(f);
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
            let has_ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=5).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
            });
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
            named_files(
                "Fix the bug in `src/auth.rs` and parse.rs, see https://x.io/a.md. Thanks."
            ),
            ["src/auth.rs", "parse.rs"]
        );
        assert!(named_files("why is it slow? e.g. no idea").is_empty());
    }

    #[test]
    fn files_named_with_at_are_read_in_each_form() {
        assert_eq!(
            mentions(
                "See @src/auth.rs, @\"docs/my notes.md\" and (@lib/a.rs#L10-20). Mail a@b.io @"
            ),
            ["src/auth.rs", "docs/my notes.md", "lib/a.rs"]
        );
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".thehook/knowledge")).unwrap();
        std::fs::write(dir.path().join(".thehook/knowledge/notes.md"), "x\n").unwrap();
        let prompt = "Fix @src/a.rs and @./src/a.rs, not @src/gone.rs or @.thehook/knowledge/notes.md or @/etc/passwd";
        assert_eq!(mentioned_files(prompt, &project, None), ["src/a.rs"]);
        // Relative to where the agent runs.
        let from_src = mentioned_files("@a.rs", &project, Some(&dir.path().join("src")));
        assert_eq!(from_src, ["src/a.rs"]);
    }
}
