//! The session-start hook: what to tell an agent when a session starts.
//!
//! It must cost nothing (docs/benchmarks.md: p50 <= 50 ms with 10,000 items),
//! so it never starts ONNX Runtime. First "Where you left off": earlier
//! sessions ranked by branch, files in play and recency ([`left_off`]).
//! Then items ranked lexically against the project's git context, and by
//! vector as well when a query vector for that exact context was cached by
//! an earlier session start's background run ([`warm`]); type quotas put
//! conventions and decisions first, then consolidated history, and within a
//! group those of the sessions named above come first. The block is cut to
//! the token budget and to 9,500 characters, under the 10,000 Claude Code
//! keeps ([`crate::inject::block`]), and
//! what it cites is recorded for the prompt hook ([`crate::given`]).

pub(crate) mod background;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::agents::{session_start_output, HookPayload};
use crate::config::Include;
use crate::error::Result;
use crate::given::{Given, Hook};
use crate::inject::block::{cited_line, render, Block, BlockLine, Waiting};
use crate::inject::cache::SideFile;
use crate::inject::git_context::{GitContext, BASES};
use crate::inject::tokens::{load_tokenizer, TokenCounts};
use crate::inject::{left_off, prompt, so_far, Added};
use crate::memory::index::{Candidates, Filter};
use crate::memory::rank::fusion::{fuse, reweigh, Mode, LEXICAL_WEIGHT};
use crate::memory::rank::tally::TallyFile;
use crate::memory::session::SessionRecord;
use crate::memory::session_lookup::SessionsByAge;
use crate::memory::{Memory, SyncPolicy, NO_PROGRESS};
use crate::model::{Availability, SearchPaths};
use crate::policy::stale::Staleness;
use crate::project::Project;
use crate::store::item::{Item, ItemKind};

/// How many candidates each retriever gives for all groups together.
const CANDIDATE_POOL: usize = 60;
/// Characters kept of one item: with five sessions and `max_results` 8,
/// the block stays about 4,000 characters, a quarter of what an agent takes.
const MAX_ITEM_CHARS: usize = 280;

/// A section of the block and the share of `max_results` it gets.
struct Group {
    title: &'static str,
    kinds: &'static [ItemKind],
    share: f32,
    /// Newest first instead of most relevant first.
    by_recency: bool,
    /// Each line says its date (decisions and history age; conventions
    /// hold until changed).
    dated: bool,
}

/// In priority order: slots left over by one group go to the next.
const GROUPS: [Group; 5] = [
    Group {
        title: "Conventions",
        kinds: &[ItemKind::Convention],
        share: 0.3,
        by_recency: false,
        dated: false,
    },
    Group {
        title: "Decisions",
        kinds: &[ItemKind::Adr],
        share: 0.25,
        by_recency: false,
        dated: true,
    },
    Group {
        title: "Gotchas",
        kinds: &[ItemKind::Gotcha],
        share: 0.15,
        by_recency: false,
        dated: false,
    },
    Group {
        title: "Notes",
        kinds: &[ItemKind::Note, ItemKind::Text],
        share: 0.1,
        by_recency: false,
        dated: false,
    },
    // Sessions have their own section, "Where you left off" ([`left_off`]).
    Group {
        title: "Recent history",
        kinds: &[ItemKind::History],
        share: 0.2,
        by_recency: true,
        dated: true,
    },
];

// The section after a compaction comes after every group.
const _: () = assert!(so_far::SECTION == GROUPS.len() + 1);

/// The section of earlier sessions, before every group.
const LEFT_OFF_TITLE: &str = "Where you left off";

/// Answers a session-start payload in `project`, which has memory (the
/// hook protocol, `crate::hook`, checked). Whatever it answers, unless it
/// fails, the hook starts the detached half ([`background`]).
pub(crate) fn on_session_start(
    payload: &HookPayload,
    project: &Project,
    paths: &SearchPaths,
) -> Result<Added> {
    let mut out = Added::default();
    // The project goes into the memory, opened once; every step after
    // asks the memory for it.
    let mut memory = Memory::open(project, paths, false)?;
    let config = memory.config().retrieval.clone();
    if !config.auto_inject {
        out.log = "retrieval.auto_inject is off".into();
        return Ok(out);
    }
    // Cursor says no source: its sessionStart is a new session.
    let source = payload.source.as_deref().unwrap_or("startup");
    let wanted = config.inject_on.iter().any(|s| s.as_str() == source);
    if !wanted {
        out.log = format!("source `{source}` is not in retrieval.inject_on");
        return Ok(out);
    }
    TokenCounts::preload_if_none(memory.project(), memory.availability());
    let context = GitContext::cached(memory.project());
    let mut notes = super::sync_for_hook(&mut memory, &super::focus_of(&context))?;
    let current = payload.session_id.as_deref();
    let record = current.map(|id| Given::of(memory.project(), id));
    let mut so_far = Vec::new();
    let mut only_so_far = false;
    // What the session was given is summarised away (a compaction) or gone
    // (`/clear`): its record starts over, so the hooks give it again; after
    // a compaction the block says what the session was working on.
    if let (Some(record), true) = (&record, so_far::LOST_CONTEXT.contains(&source)) {
        if source == "compact" {
            let section = so_far::lines(&memory, record, &context, MAX_ITEM_CHARS)?;
            so_far = section.lines;
            // A session given a block at its start is given what it was
            // given, not the block again: on the replayed histories (tuning
            // half) the whole block again cost 3,110 characters a
            // compaction, the section alone 880.
            only_so_far = section.had_start;
        }
        if let Err(e) = record.start_over(source) {
            notes += &format!("; could not start the record over: {e}");
        }
    }
    let shape = Shape {
        so_far,
        only_so_far,
        ..Shape::default()
    };
    // What agents used of what they were given ranks it up or down.
    let tally = TallyFile::load(memory.project());
    let mut composed = compose(
        &memory,
        context,
        &config,
        current,
        payload.agent,
        &shape,
        &tally,
    )?;
    // A session file edited in place since the last sync: made again.
    if super::recheck_for_hook(&mut memory, &composed.block.cited)? {
        let context = std::mem::take(&mut composed.context);
        composed = compose(
            &memory,
            context,
            &config,
            current,
            payload.agent,
            &shape,
            &tally,
        )?;
    }
    let Composed {
        query,
        hybrid,
        block,
        waiting,
        ..
    } = composed;
    if let Some(record) = &record {
        // The prompt hook gives this session only what it was not given.
        let cited: Vec<&str> = block.cited.iter().map(String::as_str).collect();
        notes += &record.record(&Hook::Start, &cited);
    }
    out.log = format!(
        "{}: {} items, {} chars, query {} words{}{notes}",
        payload.agent,
        block.items,
        block.text.len(),
        query.split_whitespace().count(),
        if hybrid { ", hybrid" } else { ", lexical" }
    );
    if block.items > 0 || waiting.failed + waiting.queued > 0 {
        out.output = Some(session_start_output(payload.agent, &block.text));
    }
    Ok(out)
}

/// What a block holds besides the session-start choice.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shape {
    /// Lines of [`so_far::TITLE`], which go first into the budget.
    pub(crate) so_far: Vec<BlockLine>,
    /// Citations not to give (given already beside the block).
    pub(crate) skip: HashSet<String>,
    /// The block holds the lines of [`so_far::TITLE`] only.
    pub(crate) only_so_far: bool,
}

/// A session-start block as composed, before it is given.
struct Composed {
    /// The git context as words, which items are ranked against.
    query: String,
    /// Whether a cached query vector ranked items too.
    hybrid: bool,
    context: GitContext,
    /// Every line the block may hold, in order; the block keeps those that fit.
    lines: Vec<BlockLine>,
    block: Block,
    waiting: Waiting,
}

/// The block a session of `agent` (`current`, when it has an id) starting
/// now in the git `context` is given: the hook's own choice, recorded
/// nowhere.
fn compose(
    memory: &Memory,
    context: GitContext,
    config: &crate::config::Retrieval,
    current: Option<&str>,
    agent: crate::agents::Agent,
    shape: &Shape,
    tally: &TallyFile,
) -> Result<Composed> {
    let project = memory.project();
    let query = context.query();
    let vector = cached_query_vector(project, &query, memory.availability());
    let sessions = left_off_sessions(memory, &context, tally, current, config)?;
    let picked = pick(
        memory,
        &query,
        vector.as_deref(),
        config.max_results,
        &config.include,
        &continued(&sessions),
        tally,
    )?;
    let (failed, queued) = crate::capture::queue::counts(project);
    // Only a failed capture can be waiting for the budget: the bill is read
    // only then, to keep session start fast.
    let budget_spent = (failed > 0)
        .then(|| crate::capture::budget::spent_today(project, &memory.config().llm.daily_budget))
        .flatten();
    // An agent that cuts long context (Codex) gets at most what it passes on.
    let budget = agent
        .description()
        .protocol
        .context_token_cap
        .map_or(config.token_budget, |cap| cap.min(config.token_budget));
    let waiting = Waiting {
        failed,
        queued,
        budget_spent,
    };
    // What the session was given before a compaction, once: not again
    // among the block's own lines.
    let again: HashSet<&str> = shape.so_far.iter().map(|l| l.cited.as_str()).collect();
    let own = match shape.only_so_far {
        true => Vec::new(),
        false => block_lines(&sessions, &picked),
    };
    let lines: Vec<BlockLine> = shape
        .so_far
        .iter()
        .cloned()
        .chain(
            own.into_iter()
                .filter(|l| !again.contains(l.cited.as_str())),
        )
        .filter(|l| !shape.skip.contains(&l.cited))
        .collect();
    let titles: Vec<&str> = section_titles()
        .chain(std::iter::once(so_far::TITLE))
        .collect();
    let block = render(
        &titles,
        &lines,
        &waiting,
        budget,
        memory.availability(),
        || TokenCounts::load(project, memory.availability()),
    );
    Ok(Composed {
        query,
        hybrid: vector.is_some(),
        context,
        lines,
        block,
        waiting,
    })
}

/// What a session starting now would be given, and why each line was
/// chosen: the session-start hook's own choice for `agent`, without
/// recording anything.
#[derive(Debug, Clone, Serialize)]
pub struct Preview {
    /// The branch the git context was read on.
    pub branch: Option<String>,
    /// The words items were ranked against (branch, files in play, commits).
    pub query: String,
    pub mode: Mode,
    pub sections: Vec<PreviewSection>,
    /// The block exactly as the agent would get it.
    pub text: String,
    pub tokens: usize,
}

/// One section of the block: its title, why its lines were chosen, and
/// its lines.
#[derive(Debug, Clone, Serialize)]
pub struct PreviewSection {
    pub title: &'static str,
    pub why: String,
    pub lines: Vec<PreviewLine>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PreviewLine {
    pub text: String,
    pub cited: String,
    /// False for a line the token budget or the character cap left out.
    pub fits: bool,
}

/// The session-start block for a subagent of `agent` in session
/// `current`, in the git `context`, within `token_budget`, without the
/// citations of `skip` (given beside it), recorded nowhere: its text
/// (`None` when it holds no line) and what it cites.
pub(crate) fn block_for_subagent(
    memory: &Memory,
    context: GitContext,
    current: Option<&str>,
    agent: crate::agents::Agent,
    token_budget: usize,
    skip: HashSet<String>,
    tally: &TallyFile,
) -> Result<Option<(String, Vec<String>)>> {
    let mut config = memory.config().retrieval.clone();
    config.token_budget = token_budget;
    let shape = Shape {
        skip,
        ..Shape::default()
    };
    let block = compose(memory, context, &config, current, agent, &shape, tally)?.block;
    Ok((block.items > 0).then_some((block.text, block.cited)))
}

/// What a session of `agent` starting now in `memory`'s project is given.
pub fn preview(memory: &Memory, agent: crate::agents::Agent) -> Result<Preview> {
    let config = memory.config().retrieval.clone();
    let context = GitContext::cached(memory.project());
    let tally = TallyFile::load(memory.project());
    let composed = compose(
        memory,
        context,
        &config,
        None,
        agent,
        &Shape::default(),
        &tally,
    )?;
    let fits: HashSet<&str> = composed.block.cited.iter().map(String::as_str).collect();
    let files = composed.context.changed_files.len();
    let sections = section_titles()
        .enumerate()
        .map(|(n, title)| PreviewSection {
            title,
            why: why(n, composed.context.branch.as_deref(), files),
            lines: composed
                .lines
                .iter()
                .filter(|l| l.section == n)
                .map(|l| PreviewLine {
                    text: l.text.clone(),
                    cited: l.cited.clone(),
                    fits: fits.contains(l.cited.as_str()),
                })
                .collect(),
        })
        .filter(|s| !s.lines.is_empty())
        .collect();
    Ok(Preview {
        branch: composed.context.branch.clone(),
        query: composed.query,
        mode: if composed.hybrid {
            Mode::Hybrid
        } else {
            Mode::Lexical
        },
        sections,
        text: composed.block.text,
        tokens: composed.block.tokens,
    })
}

/// Why section `n`'s lines were chosen, in words.
fn why(n: usize, branch: Option<&str>, files: usize) -> String {
    let on = branch.map_or("no branch".to_string(), |b| format!("branch `{b}`"));
    match n {
        0 => format!(
            "earlier sessions ranked by {on}, the {files} files in play and how recent they are"
        ),
        _ if GROUPS[n - 1].by_recency => "the newest first".into(),
        _ => format!(
            "most relevant to the git context ({on}, {files} files in play, recent commits); \
             those of the sessions above first; never stale or withheld"
        ),
    }
}

/// Whether an item's file is one of those `retrieval.include` names.
/// Hand-written knowledge files other than the four known ones count as notes.
fn included(item: &Item, include: &[Include]) -> bool {
    let category = if item.path.starts_with(crate::project::SESSIONS_PREFIX) {
        Include::Sessions
    } else {
        match item.path.rsplit('/').next().unwrap_or_default() {
            "conventions.md" => Include::Conventions,
            "architecture.md" => Include::Architecture,
            "history.md" => Include::History,
            _ => Include::Notes,
        }
    };
    include.contains(&category)
}

/// The sessions of "Where you left off": earlier sessions ranked by the
/// branch, the files in play and recency ([`left_off`]).
fn left_off_sessions(
    memory: &Memory,
    context: &GitContext,
    tally: &TallyFile,
    current: Option<&str>,
    config: &crate::config::Retrieval,
) -> Result<Vec<SessionRecord>> {
    if config.left_off == 0 || !config.include.contains(&Include::Sessions) {
        return Ok(Vec::new());
    }
    let sessions = memory.index().session_lookup()?;
    // A branch says in words what it is about: its name and its commits'
    // subjects. On a base branch those are everyone's work.
    let own = context.branch.as_deref().filter(|b| !BASES.contains(b));
    let mut by_words = match own {
        Some(branch) => {
            let said = format!("{branch} {}", context.branch_subjects.join(" "));
            prompt::by_file_words(memory, &sessions, &said, tally)?
        }
        None => Vec::new(),
    };
    // A resumed session's own file is not news to it.
    let its_own = sessions.paths_of(current)?;
    by_words.retain(|path| !its_own.contains(path));
    left_off::rank(
        &sessions,
        context,
        tally,
        &by_words,
        current,
        config.left_off,
    )
}

/// The files of the sessions "Where you left off" names: their conventions,
/// decisions and gotchas are those of the work being continued.
fn continued(sessions: &[SessionRecord]) -> HashSet<String> {
    sessions.iter().map(|s| s.path.clone()).collect()
}

/// Every line the block may hold, in order. Section 0 is "Where you left
/// off", `g + 1` is `GROUPS[g]`.
fn block_lines(sessions: &[SessionRecord], picked: &[(usize, Item)]) -> Vec<BlockLine> {
    let sessions = sessions.iter().map(|s| BlockLine {
        section: 0,
        text: left_off::line(s),
        cited: s.citation(),
    });
    let items = picked.iter().map(|(g, item)| BlockLine {
        section: g + 1,
        text: item_line(item, *g),
        cited: item.citation(),
    });
    sessions.chain(items).collect()
}

/// The block's section titles: "Where you left off", then the groups'.
fn section_titles() -> impl Iterator<Item = &'static str> {
    std::iter::once(LEFT_OFF_TITLE).chain(GROUPS.iter().map(|g| g.title))
}

/// Items for each group, in group order, at most `max` in all. Stale
/// items (a path or symbol gone, a superseded decision) and withheld ones
/// (a safety rule broken) are never picked.
fn pick(
    memory: &Memory,
    query: &str,
    vector: Option<&[f32]>,
    max: usize,
    include: &[Include],
    prefer: &HashSet<String>,
    tally: &TallyFile,
) -> Result<Vec<(usize, Item)>> {
    // Both retrievers run once for all groups; each group fuses its share.
    let pool = if query.trim().is_empty() {
        Candidates::default()
    } else {
        memory
            .index()
            .candidates(query, vector, CANDIDATE_POOL, &Filter::for_agents())?
    };
    let mode = if vector.is_some() {
        Mode::Hybrid
    } else {
        Mode::Lexical
    };
    let mut ranked: Vec<Vec<Item>> = Vec::with_capacity(GROUPS.len());
    let mut seen = std::collections::HashSet::new();
    let staleness = Staleness::load(memory.project());
    for group in &GROUPS {
        let want = max * 2 + 4;
        let recent = memory.index().recent(group.kinds, want)?;
        let mine = |list: &[(Item, f32)]| -> Vec<(Item, f32)> {
            list.iter()
                .filter(|(i, _)| group.kinds.contains(&i.kind))
                .cloned()
                .collect()
        };
        let candidates = Candidates {
            lexical: mine(&pool.lexical),
            vector: mine(&pool.vector),
        };
        let mut hits = fuse(
            candidates,
            mode,
            LEXICAL_WEIGHT,
            None,
            want,
            memory.analyzer(),
        );
        // What agents used rises, what they were given often and never
        // used sinks.
        reweigh(&mut hits, tally);
        let relevant: Vec<Item> = hits.into_iter().map(|h| h.item).collect();
        let (first, then) = if group.by_recency {
            (recent, relevant)
        } else {
            (relevant, recent)
        };
        let mut list: Vec<Item> = first
            .into_iter()
            .chain(then)
            .filter(|i| {
                i.for_agents()
                    && included(i, include)
                    && seen.insert(i.id.clone())
                    && staleness.reason(i).is_none()
            })
            .collect();
        if !group.by_recency {
            // Those of the sessions being continued first, in their order.
            list.sort_by_key(|i| !prefer.contains(&i.path));
        }
        ranked.push(list);
    }
    let lengths: Vec<usize> = ranked.iter().map(Vec::len).collect();
    let counts = allot(&lengths, max);
    Ok(ranked
        .into_iter()
        .zip(counts)
        .enumerate()
        .flat_map(|(g, (list, n))| list.into_iter().take(n).map(move |item| (g, item)))
        .collect())
}

/// How many items each group gets of `max`, given how many it has: every
/// group that has items gets one first (in priority order, while slots
/// last), then its share of `max`, then the slots left go round the groups
/// in priority order.
fn allot(available: &[usize], max: usize) -> Vec<usize> {
    let mut counts = vec![0usize; available.len()];
    let mut left = max;
    let give = |g: usize, n: usize, counts: &mut Vec<usize>, left: &mut usize| {
        let n = n.min(available[g] - counts[g]).min(*left);
        counts[g] += n;
        *left -= n;
    };
    for g in 0..available.len() {
        give(g, 1, &mut counts, &mut left);
    }
    for (g, group) in GROUPS.iter().enumerate().take(available.len()) {
        let share = (group.share * max as f32) as usize;
        give(g, share.saturating_sub(counts[g]), &mut counts, &mut left);
    }
    while left > 0 && (0..available.len()).any(|g| counts[g] < available[g]) {
        for g in 0..available.len() {
            give(g, 1, &mut counts, &mut left);
        }
    }
    counts
}

/// `- text, 2026-02-20 (path:line)`, dated when its group is.
fn item_line(item: &Item, group: usize) -> String {
    cited_line(item, GROUPS[group].dated, MAX_ITEM_CHARS)
}

/// What a context query's vector is fresh for: the query, and the model
/// that embedded it.
#[derive(PartialEq, Serialize, Deserialize)]
struct QueryKey {
    query_sha256: String,
    fingerprint: String,
}

impl QueryKey {
    fn of(query: &str, availability: &Availability) -> QueryKey {
        QueryKey {
            query_sha256: crate::hash::sha256_hex(query.as_bytes()),
            fingerprint: availability.fingerprint(),
        }
    }
}

/// The context query's vector, embedded by the background half for the
/// next session start's foreground, which never starts the model.
const QUERY_VECTOR: SideFile<QueryKey, Vec<f32>> = SideFile::new("context-query.json");

fn cached_query_vector(
    project: &Project,
    query: &str,
    availability: &Availability,
) -> Option<Vec<f32>> {
    if query.trim().is_empty() {
        return None;
    }
    QUERY_VECTOR.read(project, &QueryKey::of(query, availability))
}

/// The session-start hook's background half, run detached after the answer
/// is printed: embeds the context query for the next session start, and
/// brings embeddings of new items up to date. Pays ONNX Runtime's start-up
/// where nobody waits for it.
pub(crate) fn warm(project: &Project, paths: &SearchPaths) -> Result<String> {
    let mut memory = Memory::open(project, paths, false)?;
    memory.sync(SyncPolicy::FULL, NO_PROGRESS)?;
    let context = GitContext::cached(project);
    let query = context.query();
    let mut vector = cached_query_vector(project, &query, memory.availability());
    let mut done: Vec<String> = Vec::new();
    // The checkout may have changed since the last session: the next
    // session start leaves out items whose symbols are gone. A failure here
    // must not keep the caches below from being warmed.
    if let Err(e) = memory.check_stale_symbols() {
        done.push(format!("symbols not checked: {e}"));
    }
    // The file hook follows a file's earlier names, read here, not there.
    match memory.follow_renames() {
        Ok(Some(0)) | Ok(None) => {}
        Ok(Some(n)) => done.push(format!("{n} renames known")),
        Err(e) => done.push(format!("renames not read: {e}")),
    }
    if vector.is_none() && !query.trim().is_empty() {
        match memory.embed_query(&query)? {
            Some(v) => {
                let key = QueryKey::of(&query, memory.availability());
                QUERY_VECTOR.write(project, &key, &v)?;
                vector = Some(v);
                done.push("cached the context query's vector".into());
            }
            None => done.push("no embedding model: lexical only".into()),
        }
    }
    let Some(tokenizer) = load_tokenizer(memory.availability()) else {
        return Ok(done.join("; "));
    };
    // What the next session start would pick, ranked either way.
    let config = memory.config().retrieval.clone();
    let mut texts: Vec<String> = section_titles()
        .map(|t| format!("## {t}"))
        .chain([
            crate::text::MEMORY_HEADING.to_string(),
            crate::text::MEMORY_IS_DATA.to_string(),
        ])
        .collect();
    let tally = TallyFile::load(project);
    let sessions = left_off_sessions(&memory, &context, &tally, None, &config)?;
    for v in [None, vector.as_deref()] {
        let picked = pick(
            &memory,
            &query,
            v,
            config.max_results,
            &config.include,
            &continued(&sessions),
            &tally,
        )?;
        texts.extend(picked.iter().map(|(g, item)| item_line(item, *g)));
    }
    texts.extend(sessions.iter().map(left_off::line));
    TokenCounts::measure(&texts, memory.availability().fingerprint(), &tokenizer).store(project)?;
    done.push("stored token counts".into());
    Ok(done.join("; "))
}

#[cfg(test)]
mod tests {
    use super::allot;

    #[test]
    fn every_group_with_items_gets_a_slot_then_its_share() {
        // Conventions, decisions, gotchas, notes, history; max_results 8.
        assert_eq!(allot(&[20, 20, 20, 20, 20], 8), [3, 2, 1, 1, 1]);
        // Few slots: priority order decides.
        assert_eq!(allot(&[20, 20, 20, 20, 20], 3), [1, 1, 1, 0, 0]);
        // A group without items leaves its slots to the others, in turn.
        assert_eq!(allot(&[20, 0, 0, 1, 20], 8), [4, 0, 0, 1, 3]);
        // Fewer items than slots: all of them.
        assert_eq!(allot(&[2, 1, 0, 0, 3], 8), [2, 1, 0, 0, 3]);
        assert_eq!(allot(&[5, 5, 5, 5, 5], 0), [0, 0, 0, 0, 0]);
    }
}
