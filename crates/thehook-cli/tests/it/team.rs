//! A team through git: clones of one repository capture, consolidate and
//! remember in parallel, then merge, rebase or pull in three; real `git`,
//! the real binary, the fake LLM that answers like a model and keeps every
//! fact. Nothing under `.thehook/` may conflict, no fact may be lost, and
//! the next consolidation after a merge settles (running it again changes
//! no byte).

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::common::*;

/// A bare origin and the clones that push to it.
struct Team {
    origin: tempfile::TempDir,
    clones: Vec<Project>,
}

impl Team {
    /// The first clone runs `thehook init` and pushes; the others only
    /// clone (teammates who never ran init).
    fn new(clones: usize) -> Team {
        let origin = tempfile::tempdir().unwrap();
        git(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
        let mut team = Team {
            origin,
            clones: Vec::new(),
        };
        let first = team.clone_origin();
        first.ok(&["init", "--agent", "claude"]);
        let llm = repo_root().join("crates/thehook-cli/tests/fixtures/llm/team");
        first.write(
            ".thehook/config.yaml",
            format!(
                "llm:\n  cli: command\n  command: [{llm:?}]\n  timeout_secs: 60\nconsolidation:\n  every_n_sessions: 1000\n"
            ),
        );
        first.write("README.md", "# app\n");
        git(first.root(), &["add", "-A"]);
        git(first.root(), &["commit", "-qm", "thehook init"]);
        git(first.root(), &["push", "-q", "origin", "main"]);
        team.clones.push(first);
        for _ in 1..clones {
            let next = team.clone_origin();
            team.clones.push(next);
        }
        team
    }

    fn clone_origin(&self) -> Project {
        let p = Project::empty().lexical_only();
        let url = self.origin.path().to_string_lossy().into_owned();
        git(p.root(), &["clone", "-q", &url, "."]);
        // The test's HOME (agent transcripts) and caches live in the clone's
        // folder; they are not the project's files.
        p.write(".git/info/exclude", "home/\nno-cache/\nno-model/\n");
        p
    }

    fn at(&self, i: usize) -> &Project {
        &self.clones[i]
    }
}

/// Captures one Claude Code session whose first ask is `ask`.
fn capture(p: &Project, id: &str, ask: &str) {
    let transcript = p.claude_session(id).user(ask).ended(hours(1));
    p.ok(&["capture", "--transcript", &transcript.to_string_lossy()]);
}

fn commit(p: &Project, message: &str) {
    git(p.root(), &["add", "-A"]);
    git(p.root(), &["commit", "-qm", message]);
}

/// Paths git reports as unmerged.
fn conflicts(p: &Project) -> String {
    git(p.root(), &["diff", "--name-only", "--diff-filter=U"])
}

/// Every item line of the knowledge files and every session file name: the
/// facts a merge must keep.
fn facts(p: &Project) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for file in walk(&p.thehook().join("knowledge")) {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            if line.starts_with("- ") {
                out.insert(line.to_string());
            }
        }
    }
    for file in walk(&p.thehook().join("sessions")) {
        out.insert(file.file_name().unwrap().to_string_lossy().into_owned());
    }
    out
}

fn assert_kept(merged: &BTreeSet<String>, side: &BTreeSet<String>, who: &str) {
    let lost: Vec<&String> = side.difference(merged).collect();
    assert!(lost.is_empty(), "the merge lost {who}'s facts: {lost:#?}");
}

/// Markdown bytes under `.thehook/` and the ledger: what "changes nothing" compares.
fn memory_bytes(p: &Project) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = p.markdown_snapshot();
    let ledger = p.thehook().join("consolidated.txt");
    files.push((ledger.clone(), std::fs::read(&ledger).unwrap_or_default()));
    files
}

/// Two sessions on each of two clones, both consolidated and committed.
fn two_clones_consolidate_in_parallel() -> Team {
    let team = Team::new(2);
    let (a, b) = (team.at(0), team.at(1));
    capture(
        a,
        "aaaaaaa1-0000-4000-8000-000000000001",
        "add retry to the http client",
    );
    capture(
        a,
        "aaaaaaa2-0000-4000-8000-000000000002",
        "split the parser into modules",
    );
    capture(
        b,
        "bbbbbbb3-0000-4000-8000-000000000003",
        "cache the user lookups",
    );
    capture(
        b,
        "bbbbbbb4-0000-4000-8000-000000000004",
        "switch logging to tracing",
    );
    for p in [a, b] {
        assert!(p.ok(&["consolidate"]).contains("consolidated 2 session(s)"));
        commit(p, "sessions and consolidation");
    }
    team
}

#[test]
fn parallel_consolidations_merge_without_conflict_and_settle() {
    let team = two_clones_consolidate_in_parallel();
    let (a, b) = (team.at(0), team.at(1));
    // The teammate who never ran init has the merge rule from the clone.
    assert!(b
        .read(".thehook/.gitattributes")
        .contains("knowledge/*.md merge=union"));
    let doctor = b.run(&["doctor"]).1;
    assert!(doctor.contains("ok   team merges"), "{doctor}");
    let (facts_a, facts_b) = (facts(a), facts(b));
    assert!(facts_a
        .iter()
        .any(|f| f.contains("Convention from add retry")));
    assert!(facts_b
        .iter()
        .any(|f| f.contains("Convention from cache the user")));

    git(a.root(), &["push", "-q", "origin", "main"]);
    let (pulled, out) = git_in(
        b.root(),
        &["pull", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert!(pulled, "the pull did not merge:\n{out}");
    assert_eq!(conflicts(b), "", "{out}");
    assert!(!out.contains("CONFLICT"), "{out}");
    let merged = facts(b);
    assert_kept(&merged, &facts_a, "A");
    assert_kept(&merged, &facts_b, "B");
    // The ledger names all four sessions: nothing waits, nothing changes.
    let before = memory_bytes(b);
    let (code, out, _) = b.run(&["consolidate"]);
    assert_eq!(code, 0);
    assert!(out.contains("no session waits"), "{out}");
    assert_eq!(memory_bytes(b), before);
    // Session files were never edited by consolidation.
    assert_eq!(
        git(
            b.root(),
            &[
                "log",
                "--format=%h",
                "--diff-filter=M",
                "--",
                ".thehook/sessions"
            ]
        ),
        ""
    );

    // The next session is consolidated into the merged knowledge, which
    // keeps both sides' facts; running it again changes nothing.
    capture(
        b,
        "bbbbbbb5-0000-4000-8000-000000000005",
        "document the release steps",
    );
    assert!(b.ok(&["consolidate"]).contains("consolidated 1 session(s)"));
    let settled = memory_bytes(b);
    assert_kept(&facts(b), &merged, "the merge");
    assert!(b.ok(&["consolidate"]).contains("no session waits"));
    assert_eq!(memory_bytes(b), settled);
    // Recall finds a fact from each side.
    for (query, fact) in [
        ("retry http client", "Convention from add retry to the http"),
        (
            "tracing logging",
            "Convention from switch logging to tracing",
        ),
    ] {
        let hits = hit_texts(&b.recall_json(query, &[]));
        assert!(hits.iter().any(|h| h.contains(fact)), "`{query}`: {hits:?}");
    }
}

#[test]
fn a_rebase_over_a_parallel_consolidation_does_not_conflict() {
    let team = two_clones_consolidate_in_parallel();
    let (a, b) = (team.at(0), team.at(1));
    let (facts_a, facts_b) = (facts(a), facts(b));
    git(a.root(), &["push", "-q", "origin", "main"]);
    let (rebased, out) = git_in(b.root(), &["pull", "--rebase", "origin", "main"]);
    assert!(rebased, "the rebase stopped:\n{out}");
    assert_eq!(conflicts(b), "");
    let merged = facts(b);
    assert_kept(&merged, &facts_a, "A");
    assert_kept(&merged, &facts_b, "B");
    git(b.root(), &["push", "-q", "origin", "main"]);
    // A pulls B's rebased work back (a fast-forward) and agrees.
    git(a.root(), &["pull", "-q", "--no-rebase", "origin", "main"]);
    assert_eq!(facts(a), merged);
    assert!(a.ok(&["consolidate"]).contains("no session waits"));
}

#[test]
fn three_clones_merge_in_turn_without_conflict() {
    let team = Team::new(3);
    let asks = [
        "add retry to the http client",
        "cache the user lookups",
        "document the release steps",
    ];
    let mut sides = Vec::new();
    for (i, ask) in asks.iter().enumerate() {
        let p = team.at(i);
        capture(
            p,
            &format!("{i}{i}{i}{i}{i}{i}{i}1-0000-4000-8000-000000000001"),
            ask,
        );
        // The same fact remembered on every clone, and one of each's own.
        p.ok(&["remember", "CI runs on every push", "--type", "convention"]);
        p.ok(&["remember", &format!("clone {i} owns the {ask} work")]);
        p.ok(&["consolidate"]);
        commit(p, "work");
        sides.push(facts(p));
    }
    let (a, b, c) = (team.at(0), team.at(1), team.at(2));
    git(a.root(), &["push", "-q", "origin", "main"]);
    let (ok, out) = git_in(
        b.root(),
        &["pull", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert!(ok && conflicts(b).is_empty(), "{out}");
    git(b.root(), &["push", "-q", "origin", "main"]);
    let (ok, out) = git_in(
        c.root(),
        &["pull", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert!(ok && conflicts(c).is_empty(), "{out}");
    let merged = facts(c);
    for (i, side) in sides.iter().enumerate() {
        assert_kept(&merged, side, &format!("clone {i}"));
    }
    let notes = c.read(".thehook/knowledge/notes.md");
    for i in 0..3 {
        assert!(notes.contains(&format!("clone {i} owns")), "{notes}");
    }
    assert!(c.ok(&["consolidate"]).contains("no session waits"));
}

#[test]
fn a_session_captured_again_is_consolidated_again() {
    let team = Team::new(1);
    let a = team.at(0);
    let id = "aaaaaaa1-0000-4000-8000-000000000001";
    capture(a, id, "add retry to the http client");
    a.ok(&["consolidate"]);
    assert!(a.read(".thehook/consolidated.txt").contains(id));
    // The session resumed: captured again into the same file, it waits again.
    let transcript = a
        .claude_session(id)
        .user("add retry to the http client")
        .user("and a circuit breaker")
        .ended(hours(1));
    a.ok(&["capture", "--transcript", &transcript.to_string_lossy()]);
    assert!(!a.read(".thehook/consolidated.txt").contains(id));
    assert!(a.ok(&["consolidate"]).contains("consolidated 1 session(s)"));
    assert_eq!(walk(&a.thehook().join("sessions")).len(), 1);
}

/// `n` session files as a pull brings them: 10 items each, one of them
/// with a word nothing else has.
fn pulled_sessions(p: &Project, n: usize) {
    for i in 0..n {
        let mut text = format!(
            "---\nsession_id: pulled-{i}\nagent: claude-code\ndate: 2026-03-{:02}T10:00:00Z\n---\n## Session Summary\n",
            i % 28 + 1
        );
        for j in 0..9 {
            text.push_str(&format!(
                "- Worked on part {j} of feature {i} in module m{i}x{j}\n"
            ));
        }
        text.push_str(&format!(
            "- `[gotcha]` the quokka{i} cache must be warmed first\n"
        ));
        p.write(
            &format!(".thehook/sessions/2026-03-01-1000-pulled-{i}.md"),
            text,
        );
    }
}

fn vectors_and_items(p: &Project) -> (u64, u64) {
    let status: serde_json::Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    let index = &status["index"];
    (
        index["vectors"].as_u64().unwrap(),
        index["items"].as_u64().unwrap(),
    )
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn after_a_large_pull_recall_answers_at_once_and_vectors_follow() {
    let p = Project::empty();
    p.ok(&["remember", "the release checklist lives in docs/release.md"]);
    // 30 sessions, 300 items: more than a one-shot command embeds first.
    pulled_sessions(&p, 30);
    let (code, out, err) = p.run(&["recall", "quokka17 cache", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("300 new items are being embedded in the background"),
        "{err}"
    );
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(hit_texts(&answer)[0].contains("quokka17"), "{answer}");
    // The detached sync embeds them; then vector search finds them too.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let (vectors, items) = vectors_and_items(&p);
        if vectors == items {
            assert_eq!(items, 301);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{vectors} of {items} vectors"
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    let hits = hit_texts(&p.recall_json("quokka17 cache warmed", &["--mode", "vector"]));
    assert!(hits.iter().any(|h| h.contains("quokka17")), "{hits:?}");
}

#[test]
fn a_few_new_sessions_are_embedded_before_the_answer() {
    let p = Project::empty();
    p.ok(&["remember", "the release checklist lives in docs/release.md"]);
    pulled_sessions(&p, 3);
    let (code, _, err) = p.run(&["recall", "quokka1 cache", "--json"]);
    assert_eq!(code, 0);
    assert!(!err.contains("background"), "{err}");
    let (vectors, items) = vectors_and_items(&p);
    assert_eq!(items, 31);
    assert_eq!(vectors, if p.with_model { 31 } else { 0 });
}

/// A year of a ten-person team, two sessions each a day: 7,300 session
/// files of 5 items. Lexical-only (the numbers with the model are
/// `bench/team.py`'s); this checks that every part still works at that size.
#[test]
fn a_year_of_a_ten_person_team_is_indexed_searched_and_injected() {
    let p = Project::empty().lexical_only();
    let start: jiff::civil::Date = "2026-01-01".parse().unwrap();
    let mut files = 0;
    for day in 0..365 {
        let date = start + jiff::Span::new().days(day);
        for dev in 0..10 {
            for n in 0..2 {
                let id = format!("d{dev}-{date}-{n}");
                let text = format!(
                    "---\nsession_id: {id}\nagent: claude-code\ndate: {date}T{:02}:00:00Z\nbranch: dev{dev}/work\n---\n\
                     ## Session Summary\n- **What was done**: day {day} task {n} of developer {dev} on module m{dev}x{day}\n\
                     - **Problems encountered**: none\n- **Decisions made**: kept the layout\n\n\
                     ## Conventions Detected\n- `[convention]` Module m{dev}x{day} keeps its tests beside it\n\n\
                     ## Gotchas\n- `[gotcha]` token{dev}z{day}z{n} expires after one hour\n",
                    9 + n * 5
                );
                p.write(
                    &format!(
                        ".thehook/sessions/{date}-{:02}00-dev{dev}-{id}.md",
                        9 + n * 5
                    ),
                    text,
                );
                files += 1;
            }
        }
    }
    assert_eq!(files, 7_300);
    let status: serde_json::Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["sessions"], 7_300);
    assert_eq!(status["index"]["items"], 7_300 * 5);
    // The first day and the last are both found, by their own words.
    for token in ["token3z0z1", "token7z364z0"] {
        let hits = hit_texts(&p.recall_json(token, &[]));
        assert!(
            hits.first().is_some_and(|h| h.contains(token)),
            "{token}: {hits:?}"
        );
    }
    // Session start: where the team left off (the newest sessions, as no
    // branch or file is in play here) and the conventions, within budget.
    let context = p.injected();
    assert!(
        context.contains("## Conventions") && context.contains("m9x364"),
        "{context}"
    );
    assert!(
        context.contains(
            "## Where you left off\n- 2026-12-31, dev9/work: day 364 task 1 of developer 9"
        ),
        "{context}"
    );
    assert!(context.len() < 9_500);
}
