//! "Where you left off": the earlier sessions a new session most likely
//! continues, ranked by what coding work shares rather than by words. Work
//! picks up where it stopped: on the same branch, on the same files, a few
//! sessions back. So, in this order:
//!
//! 1. the current branch's own sessions, newest first (a share of the
//!    slots), unless it is a base branch (`main`), where that would only be
//!    everyone's latest work;
//! 2. sessions that changed a file whose name the branch says in words, in
//!    its name or its commits' subjects (`soph/track-token-usage` and
//!    `token_usage.go`), as the prompt hook reads a prompt;
//! 3. sessions that changed the files now in play (uncommitted changes, the
//!    branch's commits since its base, the latest commits), a file counting
//!    for more the fewer sessions touched it and a session for more the
//!    fewer sessions back it is;
//! 4. the latest sessions, for the rest.
//!
//! Sessions whose lines agents used count for more in 3, and those given
//! often and never used for less ([`crate::memory::rank::tally`]).
//!
//! Nothing here reads a markdown file or loads a model: the sessions come
//! from the index's keys ([`SessionLookup`]), the context from git.

use std::collections::{HashMap, HashSet};

use crate::error::Result;
use crate::inject::git_context::{GitContext, BASES};
use crate::memory::rank::tally::TallyFile;
use crate::memory::session::SessionRecord;
use crate::memory::session_lookup::SessionLookup;
use crate::text::clip_chars;

/// A file touched by more than this share of the sessions says nothing
/// about which of them is meant (by a prompt that says its name, or by a
/// tool call on it). On the replayed histories' tuning half, a tenth, a
/// twentieth and 3% gave the file hook the same hit at the first rare edit
/// (0.947) and precision 1.33x, 1.37x and 1.40x the 5 latest sessions'; the
/// prompt hook's file words, 1.43x and 1.44x at a tenth and 3%.
pub(crate) const RARE_FILE_SHARE: f32 = 0.03;

/// The share of the slots the branch's own sessions may take: the rest is
/// left to the files in play and to recency.
const BRANCH_SHARE: f32 = 0.6;
/// Slots kept for the very latest sessions, whatever the branch and files
/// say: the session just before is the one most often continued.
const LATEST_KEPT: usize = 1;
/// How much a file in play counts, by where it is in play.
const UNCOMMITTED_WEIGHT: f32 = 3.0;
const BRANCH_WEIGHT: f32 = 2.0;
const RECENT_WEIGHT: f32 = 1.0;
/// A session this many sessions back has its file overlap counted half.
const RECENCY_SESSIONS: f32 = 5.0;
/// At most this many sessions on files the branch names in words: on
/// entireio/cli's replayed tuning half, session start named a session that
/// shares a rare file with the new one 0.741 of the time with 2 of them
/// before the files in play, 0.706 without (docs/benchmarks.md, issue 62).
const WORD_SESSIONS: usize = 2;
/// Characters kept of a session's line (before its citation).
const MAX_LINE_CHARS: usize = 260;

/// The sessions to name, best first, at most `limit`. `named`: the
/// sessions on files the branch names in words, best first. `current` is
/// the session starting now (a resumed session's own file is not news to it).
/// Reads the sessions it names, the branch's and those on the files in
/// play: not every record.
pub(crate) fn rank(
    sessions: &impl SessionLookup,
    context: &GitContext,
    tally: &TallyFile,
    named: &[String],
    current: Option<&str>,
    limit: usize,
) -> Result<Vec<SessionRecord>> {
    let mut chosen: Vec<String> = Vec::with_capacity(limit);
    let take = |path: &str, chosen: &mut Vec<String>| {
        if chosen.len() < limit && !chosen.iter().any(|c| c == path) {
            chosen.push(path.to_string());
        }
    };
    let latest_kept = LATEST_KEPT.min(limit);
    let ranked_slots = limit - latest_kept;
    // 1. The branch's own sessions.
    // On a base branch (main), "its own sessions" would be everyone's
    // latest work: recency, which step 3 gives anyway.
    let own_branch = context.branch.as_deref().filter(|b| !BASES.contains(b));
    if let Some(branch) = own_branch {
        let share = ((limit as f32) * BRANCH_SHARE).round() as usize;
        for s in sessions.of_branch(branch, share.min(ranked_slots), current)? {
            take(&s.path, &mut chosen);
        }
    }
    // 2. Sessions that changed a file whose name the branch says in words.
    for path in named.iter().take(WORD_SESSIONS) {
        if chosen.len() >= ranked_slots {
            break;
        }
        take(path, &mut chosen);
    }
    // 3. Sessions on the files in play.
    // At most `ranked_slots` are read: those chosen already take no slot,
    // and there are fewer of them than slots.
    for path in on_files_in_play(sessions, context, tally, current, ranked_slots)? {
        if chosen.len() >= ranked_slots {
            break;
        }
        take(&path, &mut chosen);
    }
    // 4. The latest.
    for s in sessions.newest(limit, current)? {
        take(&s.path, &mut chosen);
    }
    let mut out = Vec::with_capacity(chosen.len());
    for path in chosen {
        out.extend(sessions.record(&path)?);
    }
    Ok(out)
}

/// The sessions that changed files now in play, best first, as many as
/// `wanted`: a file counts for more the fewer sessions touched it, a
/// session for more the fewer sessions back it is; of equals, the newer.
/// Walks the sessions from the newest only until no older one could rank
/// among the first `wanted`.
fn on_files_in_play(
    sessions: &impl SessionLookup,
    context: &GitContext,
    tally: &TallyFile,
    current: Option<&str>,
    wanted: usize,
) -> Result<Vec<String>> {
    let in_play = files_in_play(context);
    if in_play.is_empty() || wanted == 0 {
        return Ok(Vec::new());
    }
    // Each session's overlap: what the files in play it changed say, summed
    // in one order of the files (sorted), whatever the order found in.
    // `current`'s own sessions are no earlier work.
    let own = sessions.paths_of(current)?;
    let total = sessions.count(current)?;
    let mut files: Vec<&str> = in_play.keys().copied().collect();
    files.sort_unstable();
    let mut overlap: HashMap<String, f32> = HashMap::new();
    for file in files {
        let mut on = sessions.touching(file)?;
        on.retain(|session| !own.contains(session));
        let says = in_play[file] * rarity(total, on.len());
        overlap.reserve(on.len());
        for session in on {
            *overlap.entry(session).or_default() += says;
        }
    }
    overlap.retain(|_, score| *score > 0.0);
    // A session whose lines agents used counts for more, one given often
    // and never used for less: asked of the sessions the walk meets, the
    // bound below allowing for the most any session's weight is.
    let most_weight = tally.most_file_weight();
    // The best overlap not met yet bounds what any older session can score.
    let mut by_overlap: Vec<(&str, f32)> = overlap.iter().map(|(s, o)| (s.as_str(), *o)).collect();
    by_overlap.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut met: HashSet<&str> = HashSet::new();
    let mut best_unmet = 0;
    let mut scored: Vec<(f32, usize, String)> = Vec::new();
    // The `wanted` best scores so far, best first.
    let mut top: Vec<f32> = Vec::with_capacity(wanted + 1);
    sessions.walk_newest(current, &mut |age, path| {
        // Work continues a few sessions back more often than far back.
        let recency = |age: usize| 1.0 / (1.0 + age as f32 / RECENCY_SESSIONS);
        if let Some((session, &o)) = overlap.get_key_value(path) {
            let score = o * tally.file(path).weight() * recency(age);
            scored.push((score, age, path.to_string()));
            met.insert(session.as_str());
            let at = top.partition_point(|t| *t >= score);
            top.insert(at, score);
            top.truncate(wanted);
        }
        while best_unmet < by_overlap.len() && met.contains(by_overlap[best_unmet].0) {
            best_unmet += 1;
        }
        let Some(&(_, unmet)) = by_overlap.get(best_unmet) else {
            return false;
        };
        // An older session scores at most `unmet * most_weight *
        // recency(age + 1)`; of equal scores the newer ranks first.
        !(top.len() == wanted && top[wanted - 1] >= unmet * most_weight * recency(age + 1))
    })?;
    // Best overlap first; of equals, the newer.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(scored.into_iter().map(|(_, _, s)| s).collect())
}

/// Each file in play with the weight of where it is in play (the highest).
fn files_in_play(context: &GitContext) -> HashMap<&str, f32> {
    let mut out: HashMap<&str, f32> = HashMap::new();
    let sources = [
        (&context.uncommitted, UNCOMMITTED_WEIGHT),
        (&context.branch_files, BRANCH_WEIGHT),
        (&context.recent_files, RECENT_WEIGHT),
    ];
    for (files, weight) in sources {
        for f in files {
            let w = out.entry(f.as_str()).or_insert(weight);
            *w = w.max(weight);
        }
    }
    out
}

/// What a file says about which session is meant: the fewer of `total`
/// sessions changed it (`touched`), the more.
pub(crate) fn rarity(total: usize, touched: usize) -> f32 {
    (1.0 + total as f32 / touched.max(1) as f32).ln()
}

/// `- 2026-02-19, feat/auth: title: what was done (path:line)`.
pub(crate) fn line(session: &SessionRecord) -> String {
    let day = session.date.get(..10).unwrap_or(&session.date);
    let mut head = day.to_string();
    if let Some(branch) = &session.branch {
        head.push_str(", ");
        head.push_str(branch);
    }
    let said: Vec<&str> = [session.title.as_deref(), session.gist.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let text = crate::store::item::normalise(&said.join(": "));
    let text = clip_chars(&text, MAX_LINE_CHARS);
    format!("- {head}: {text} ({})", session.citation())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(n: usize, branch: &str, files: &[&str]) -> SessionRecord {
        SessionRecord {
            path: format!(".thehook/sessions/s{n}.md"),
            session_id: Some(format!("s{n}")),
            date: format!("2026-02-{:02}T10:00:00Z", n),
            branch: Some(branch.to_string()),
            title: Some(format!("session {n}")),
            files: files.iter().map(|f| f.to_string()).collect(),
            gist: None,
            withheld_title: None,
            line: 7,
            agent: None,
            title_line: 3,
            title_awaiting_check: None,
            awaiting_check: false,
        }
    }

    /// The ids of the sessions `rank` names, asked of the records as a list.
    fn rank_ids(
        sessions: &[SessionRecord],
        context: &GitContext,
        current: Option<&str>,
        limit: usize,
    ) -> Vec<String> {
        ids_of(sessions, context, &TallyFile::default(), current, limit)
    }

    fn rank_with(
        sessions: &[SessionRecord],
        context: &GitContext,
        tally: &TallyFile,
        limit: usize,
    ) -> Vec<String> {
        ids_of(sessions, context, tally, None, limit)
    }

    fn ids_of(
        sessions: &[SessionRecord],
        context: &GitContext,
        tally: &TallyFile,
        current: Option<&str>,
        limit: usize,
    ) -> Vec<String> {
        let analyzer = crate::text::analysis::lexical::Analyzer::default();
        let list = crate::memory::session_lookup::SessionList::new(sessions, &analyzer);
        rank(&list, context, tally, &[], current, limit)
            .unwrap()
            .into_iter()
            .map(|s| s.session_id.unwrap())
            .collect()
    }

    #[test]
    fn a_session_whose_lines_went_unused_ranks_below_one_agents_used() {
        let sessions: Vec<SessionRecord> = (1..=6)
            .map(|n| {
                session(
                    n,
                    "main",
                    if n <= 2 {
                        &["src/rare.rs"]
                    } else {
                        &["src/other.rs"]
                    },
                )
            })
            .collect();
        let context = GitContext {
            branch: Some("main".into()),
            uncommitted: vec!["src/rare.rs".into()],
            ..GitContext::default()
        };
        // Of equal overlap, the newer first.
        assert_eq!(
            rank_with(&sessions, &context, &TallyFile::default(), 3),
            ["s2", "s1", "s6"]
        );
        // s2's lines were given to 6 sessions and never used; s1's used in 3 of 4.
        let mut tally = crate::memory::rank::tally::Tally::default();
        for n in 0..6 {
            tally.add_session([(".thehook/sessions/s2.md:7", false)]);
            if n < 4 {
                tally.add_session([(".thehook/sessions/s1.md:7", n < 3)]);
            }
        }
        let tally = tally.to_file();
        assert_eq!(
            rank_with(&sessions, &context, &tally, 3),
            ["s1", "s2", "s6"]
        );
    }

    #[test]
    fn the_branch_first_then_the_files_in_play_then_the_latest() {
        let sessions = vec![
            session(1, "main", &["src/parser.rs", "README.md"]),
            session(2, "feat/x", &["src/x.rs"]),
            session(3, "main", &["README.md"]),
            session(4, "feat/x", &["src/x.rs", "README.md"]),
            session(5, "main", &["src/other.rs", "README.md"]),
            session(6, "main", &["src/y.rs"]),
            session(7, "main", &["src/z.rs"]),
        ];
        let context = GitContext {
            branch: Some("feat/x".into()),
            uncommitted: vec!["src/parser.rs".into()],
            ..GitContext::default()
        };
        // Branch: 4, 2 (newest first). Files: 1 (the parser). The latest: 7, 6.
        assert_eq!(
            rank_ids(&sessions, &context, None, 5),
            ["s4", "s2", "s1", "s7", "s6"]
        );
        // The session starting now (resumed) is not named.
        assert_eq!(
            rank_ids(&sessions, &context, Some("s4"), 3),
            ["s2", "s1", "s7"]
        );
    }

    #[test]
    fn a_file_few_sessions_touched_counts_for_more_than_a_common_one() {
        let sessions = vec![
            session(1, "a", &["src/rare.rs"]),
            session(2, "b", &["README.md"]),
            session(3, "c", &["README.md"]),
            session(4, "d", &["README.md"]),
            session(5, "e", &["src/new.rs"]),
        ];
        let context = GitContext {
            branch: Some("main".into()),
            recent_files: vec!["README.md".into(), "src/rare.rs".into()],
            ..GitContext::default()
        };
        // s1 shares the rare file; then the README sessions, newest first;
        // the latest (s5) keeps its slot.
        assert_eq!(
            rank_ids(&sessions, &context, None, 4),
            ["s1", "s4", "s3", "s5"]
        );
    }

    #[test]
    fn on_main_the_files_in_play_come_before_everyones_latest_work() {
        let sessions = vec![
            session(1, "main", &["src/a.rs"]),
            session(2, "main", &["src/b.rs"]),
            session(3, "main", &["src/c.rs"]),
        ];
        let context = GitContext {
            branch: Some("main".into()),
            recent_files: vec!["src/a.rs".into()],
            ..GitContext::default()
        };
        assert_eq!(rank_ids(&sessions, &context, None, 3), ["s1", "s3", "s2"]);
    }

    /// The walk stops early, once no older session can rank among those
    /// asked for: the first ones are those a walk of every session gives.
    #[test]
    fn the_first_sessions_on_files_in_play_are_those_a_full_walk_gives() {
        let mut next = crate::memory::session_lookup::seeded(0x01ea_f0ff);
        let pool: Vec<String> = (0..25).map(|f| format!("src/f{f}.rs")).collect();
        let sessions: Vec<SessionRecord> = (1..=400)
            .map(|n| {
                let files: Vec<&str> = (0..1 + next(4)).map(|_| pool[next(25)].as_str()).collect();
                let mut s = session(n, "main", &files);
                // Several sessions a day: ages and dates tie.
                s.date = format!("2026-{:02}-{:02}T10:00:00Z", 1 + n / 60, 1 + (n % 60) / 3);
                s
            })
            .collect();
        let analyzer = crate::text::analysis::lexical::Analyzer::default();
        let list = crate::memory::session_lookup::SessionList::new(&sessions, &analyzer);
        for round in 0..20 {
            let context = GitContext {
                uncommitted: vec![pool[next(25)].clone()],
                branch_files: (0..next(3)).map(|_| pool[next(25)].clone()).collect(),
                recent_files: (0..next(6)).map(|_| pool[next(25)].clone()).collect(),
                ..GitContext::default()
            };
            let current = Some(format!("s{}", 1 + next(400)));
            // Half the rounds weigh sessions by what agents used of them,
            // up to twice and down to a fifth: the walk's early stop must
            // allow for the most weight.
            let mut tally = crate::memory::rank::tally::Tally::default();
            if round % 2 == 1 {
                for n in 1..=400 {
                    let cited = format!(".thehook/sessions/s{n}.md:7");
                    let used = next(3);
                    for given in 0..next(12) {
                        tally.add_session([(cited.as_str(), given % 3 < used)]);
                    }
                }
            }
            let tally = tally.to_file();
            let all =
                on_files_in_play(&list, &context, &tally, current.as_deref(), usize::MAX).unwrap();
            for wanted in [1, 3, 4] {
                let first =
                    on_files_in_play(&list, &context, &tally, current.as_deref(), wanted).unwrap();
                assert_eq!(
                    first[..wanted],
                    all[..wanted],
                    "round {round}, {wanted} wanted"
                );
                assert!(
                    first.len() < all.len(),
                    "round {round}: it walked every session"
                );
            }
        }
    }

    #[test]
    fn a_line_says_when_where_what_and_cites() {
        let mut s = session(9, "feat/auth", &[]);
        s.gist = Some("refresh rotation done, integration test still failing".into());
        assert_eq!(
            line(&s),
            "- 2026-02-09, feat/auth: session 9: refresh rotation done, integration test still failing (.thehook/sessions/s9.md:7)"
        );
    }
}
