//! `Index::sync` driven by scripted edits of the markdown, with every
//! database dumped as text after each step and snapshotted. Lexical-only:
//! no model is needed, and the vector database stays empty.

use std::path::Path;

use super::{Embedding, FileNames, Focus, Index, SyncPlan, SyncStats, LEXICAL_ONLY};
use crate::model::Availability;
use crate::project::Project;

const CONVENTIONS: &str = ".thehook/knowledge/conventions.md";
const SESSION: &str = ".thehook/sessions/2026-01-02-0900-auth.md";

/// A project on disk and its index, edited step by step.
struct Scenario {
    _dir: tempfile::TempDir,
    project: Project,
    index: Index,
    /// Each write gets the next day as its mtime: a fixed value the dump can
    /// show, old enough not to be smudged, and different from the last.
    day: i16,
}

impl Scenario {
    fn new() -> Scenario {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(project.knowledge_dir()).unwrap();
        std::fs::create_dir_all(project.sessions_dir()).unwrap();
        let (index, rebuilt) = Index::open(&project, LEXICAL_ONLY).unwrap();
        assert_eq!(rebuilt, None);
        Scenario {
            _dir: dir,
            project,
            index,
            day: 1,
        }
    }

    fn write(&mut self, rel: &str, text: &str) -> &mut Scenario {
        let path = self.project.root().join(rel);
        std::fs::write(&path, text).unwrap();
        self.day += 1;
        set_mtime(&path, self.day);
        self
    }

    fn remove(&mut self, rel: &str) -> &mut Scenario {
        std::fs::remove_file(self.project.root().join(rel)).unwrap();
        self
    }

    /// A lexical-only sync.
    fn sync(&self, rebuild: bool) -> SyncStats {
        self.sync_with(&lexical(), rebuild)
    }

    fn sync_with(&self, availability: &Availability, rebuild: bool) -> SyncStats {
        let plan = SyncPlan {
            rebuild,
            ..SyncPlan::new(availability, Embedding::All, &|_, _| {})
        };
        self.index.sync(&self.project, &plan).unwrap()
    }

    /// A lexical-only rebuild in transactions of about `batch_items` items.
    fn rebuild_in_batches(&self, batch_items: usize) -> SyncStats {
        let lexical = lexical();
        let plan = SyncPlan {
            rebuild: true,
            batch_items,
            ..SyncPlan::new(&lexical, Embedding::All, &|_, _| {})
        };
        self.index.sync(&self.project, &plan).unwrap()
    }

    /// Dates `rel` (a file or folder) far back, past the racy window, so
    /// that a sync may record the folders' stamp.
    fn long_ago(&self, rel: &str) {
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        let file = std::fs::File::open(self.project.root().join(rel)).unwrap();
        file.set_modified(when).unwrap();
    }
}

/// The stored vector of `key`, widened from half precision.
fn stored_vector(index: &Index, txn: &heed::RoTxn<heed::WithoutTls>, key: u32) -> Vec<f32> {
    super::vectors::decode(index.dbs.vectors.get(txn, &key).unwrap().unwrap())
}

/// Noon of January's `day`th day of 2026 (past its 31st, the days after).
fn set_mtime(path: &Path, day: i16) {
    let start: jiff::Timestamp = "2026-01-01T12:00:00Z".parse().unwrap();
    let time = start + jiff::SignedDuration::from_hours(24 * i64::from(day - 1));
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(time.into()).unwrap();
}

fn session(extra: &str) -> String {
    format!(
        "---\nsession_id: s-1\nagent: claude-code\ndate: 2026-01-02T09:00:00Z\ntitle: Auth\n---\n\
         ## Session Summary\n- **What was done**: JWT auth\n\n\
         ## Gotchas\n- `[gotcha]` vitest misses aliased imports\n{extra}"
    )
}

/// No model: the syncs are lexical-only.
fn lexical() -> Availability {
    Availability::Missing {
        reason: "no model in this test".into(),
        fix: "".into(),
    }
}

/// Counts of a sync, for one-line assertions.
fn counts(s: &SyncStats) -> (usize, usize, usize) {
    (s.files_changed, s.items_added, s.items_removed)
}

#[test]
fn a_first_sync_stores_every_item_its_postings_and_each_files_record() {
    let mut s = Scenario::new();
    s.write(
        CONVENTIONS,
        "# Conventions\n\n- Tests live in __tests__/\n- Use pnpm\n",
    )
    .write(SESSION, &session(""));
    assert_eq!(counts(&s.sync(false)), (2, 4, 0));
    insta::assert_snapshot!(s.index.dump());
}

#[test]
fn an_edit_keeps_the_key_of_an_item_that_moved_and_drops_the_postings_of_one_that_left() {
    let mut s = Scenario::new();
    s.write(
        CONVENTIONS,
        "# Conventions\n\n- Tests live in __tests__/\n- Use pnpm\n",
    );
    s.sync(false);
    // "Use pnpm" leaves, "Tests live..." moves down two lines, one item arrives.
    s.write(
        CONVENTIONS,
        "# Conventions\n\n- Run lint before commit\n\n- Tests live in __tests__/\n",
    );
    assert_eq!(counts(&s.sync(false)), (1, 1, 1));
    insta::assert_snapshot!(s.index.dump());
}

#[test]
fn a_deleted_file_takes_its_items_postings_and_record_with_it() {
    let mut s = Scenario::new();
    s.write(CONVENTIONS, "- Use pnpm\n")
        .write(SESSION, &session(""));
    s.sync(false);
    s.remove(SESSION);
    assert_eq!(counts(&s.sync(false)), (1, 0, 2));
    insta::assert_snapshot!(s.index.dump());
}

#[test]
fn a_sync_without_changes_writes_nothing() {
    let mut s = Scenario::new();
    s.write(CONVENTIONS, "- Use pnpm\n")
        .write(SESSION, &session(""));
    s.sync(false);
    let before = s.index.dump();
    assert_eq!(s.sync(false), SyncStats::default());
    assert_eq!(s.index.dump(), before);
}

#[test]
fn a_rebuild_gives_back_the_index_a_fresh_sync_builds() {
    let mut s = Scenario::new();
    s.write(CONVENTIONS, "- Use pnpm\n- Tests live in __tests__/\n")
        .write(SESSION, &session(""));
    s.sync(false);
    // Churn: the keys run on past the items that are left.
    s.write(CONVENTIONS, "- Use pnpm\n")
        .write(SESSION, &session("- `[gotcha]` ports clash\n"));
    s.sync(false);
    s.write(CONVENTIONS, "- Use pnpm\n- Tests live in __tests__/\n")
        .write(SESSION, &session(""));
    s.sync(false);
    let churned = s.index.dump();

    s.sync(true);
    let rebuilt = s.index.dump();
    assert_ne!(churned, rebuilt, "keys are renumbered from 0");

    let mut fresh = Scenario::new();
    fresh
        .write(CONVENTIONS, "- Use pnpm\n- Tests live in __tests__/\n")
        .write(SESSION, &session(""));
    // Same mtimes as the rebuilt project's files.
    set_mtime(&fresh.project.root().join(CONVENTIONS), s.day - 1);
    set_mtime(&fresh.project.root().join(SESSION), s.day);
    fresh.sync(false);
    assert_eq!(rebuilt, fresh.index.dump());
}

#[test]
fn a_reply_shares_its_questions_match_while_it_follows_the_question() {
    let mut s = Scenario::new();
    let faq = "## Deploys\n\
               - How do we roll back a failed migration?\n\
               - Run `make db-undo`, then redeploy the previous tag.\n\
               - Lunch is at noon.\n";
    s.write(CONVENTIONS, faq);
    s.sync(false);
    let found = |s: &Scenario| -> Vec<(String, f32)> {
        let filter = super::Filter::default();
        let hits = s
            .index
            .candidates("roll back a migration", None, 5, &filter);
        let hits = hits.unwrap().lexical;
        hits.into_iter()
            .map(|(item, score)| (item.text, score))
            .collect()
    };
    let hits = found(&s);
    // The reply shares no word with the query: it is found through its question.
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits[0].0.starts_with("How do we roll back"), "{hits:?}");
    assert!(hits[1].0.starts_with("Run `make db-undo`"), "{hits:?}");
    assert!((hits[1].1 - 0.7 * hits[0].1).abs() < 1e-4, "{hits:?}");
    insta::assert_snapshot!(s.index.dump());

    // A heading in between makes them two sections: the link goes.
    s.write(CONVENTIONS, &faq.replace("- Run", "## Answers\n- Run"));
    s.sync(false);
    assert_eq!(found(&s).len(), 1, "{:?}", found(&s));
    assert!(s.index.dump().contains("replies:\npaths:"));
}

/// What the prompt hook's floor counts, a match's terms shared with the
/// query, is what analysing its text gives; a reply found through its
/// question shares none of its own.
#[test]
fn the_terms_a_match_shares_with_the_query_are_those_its_text_holds() {
    let mut s = Scenario::new();
    s.write(
        CONVENTIONS,
        "## Deploys\n\
         - How do we roll back a failed migration?\n\
         - Run `make db-undo`, then redeploy the previous tag.\n\
         - Migrations roll forward only; a failed migration is rolled back by hand.\n\
         - Deploys run migrations first, then roll the services.\n",
    );
    s.sync(false);
    let query = "how do we roll back failed migrations";
    let analyzer = crate::text::analysis::lexical::Analyzer::default();
    let asked: std::collections::HashSet<String> = analyzer.terms(query).into_iter().collect();
    let matches = s
        .index
        .words_shared(&s.index.query_terms(query), 10, &super::Filter::default())
        .unwrap();
    assert_eq!(matches.len(), 4, "{matches:?}");
    for m in &matches {
        let held: std::collections::HashSet<String> =
            analyzer.terms(&m.item.text).into_iter().collect();
        assert_eq!(m.shared_terms, held.intersection(&asked).count(), "{m:?}");
    }
    let shared: Vec<usize> = matches.iter().map(|m| m.shared_terms).collect();
    assert!(shared.contains(&0), "the reply: {shared:?}");
    assert!(shared.iter().any(|n| *n >= 4), "the question: {shared:?}");
}

/// The `paths` part of the dump.
/// The dump's links from files, and the sessions' keys.
fn paths_part(s: &Scenario) -> String {
    let dump = s.index.dump();
    let from = dump.find("paths:\n").expect("the dump shows paths");
    let to = dump[from..].find("trees:").expect("trees follow");
    dump[from..from + to].to_string()
}

#[test]
fn a_files_links_follow_the_items_that_name_it_and_the_sessions_that_changed_it() {
    // A link: the file (or a symbol the item names), then `i`, the kind's
    // rank (convention: 2), the age (12 digits, newest first) and the
    // item's key; or `s`, the age and the session file.
    let mut s = Scenario::new();
    let with_files = |files: &[&str], extra: &str| {
        let list: String = files.iter().map(|f| format!("- {f}\n")).collect();
        session(extra).replacen("title: Auth\n", &format!("title: Auth\nfiles:\n{list}"), 1)
    };
    s.write(
        CONVENTIONS,
        "- `src/auth/jwt.ts:12` signs with RS256 in `signToken()`\n- Use pnpm\n",
    )
    .write(
        SESSION,
        &with_files(&["src/auth/jwt.ts", "package.json"], ""),
    );
    s.sync(false);
    insta::assert_snapshot!(paths_part(&s), @r"
    paths:
      symbol signToken -> i299823264479900000000
      package.json -> s998232655599.thehook/sessions/2026-01-02-0900-auth.md
      src/auth/jwt.ts -> i299823264479900000000
      src/auth/jwt.ts -> s998232655599.thehook/sessions/2026-01-02-0900-auth.md
    session_dates:
      2026-01-02T09:00:00Z | .thehook/sessions/2026-01-02-0900-auth.md = id s-1, branch -
    session_keys:
      is-1 | .thehook/sessions/2026-01-02-0900-auth.md
      p.thehook/sessions/2026-01-02-0900-auth.md = id s-1, branch -
      tnosj.egakcap = 1
      tst.twj/htua/crs = 1
      wjwt | src/auth/jwt.ts
      wpackag | package.json
    ");
    // The item is found too by the symbol a file defines, named anywhere.
    assert_eq!(
        s.index
            .about_file(
                &FileNames {
                    path: "src/sign.ts",
                    defines: vec!["signToken"],
                    ..FileNames::default()
                },
                10,
                10
            )
            .unwrap()
            .items
            .len(),
        1
    );
    // A file git renamed from jwt.ts has its session, not its item (which
    // names a path no longer there: stale).
    let renamed = FileNames {
        path: "src/auth/token.ts",
        earlier: vec!["src/auth/jwt.ts"],
        ..FileNames::default()
    };
    let about = s.index.about_file(&renamed, 10, 10).unwrap();
    assert_eq!((about.items.len(), about.sessions.len()), (0, 1));
    // The session changed other files after all; the item no longer names one.
    s.write(CONVENTIONS, "- jwt signs with RS256\n- Use pnpm\n")
        .write(SESSION, &with_files(&["src/auth/session.ts"], ""));
    s.sync(false);
    insta::assert_snapshot!(paths_part(&s), @r"
    paths:
      src/auth/session.ts -> s998232655599.thehook/sessions/2026-01-02-0900-auth.md
    session_dates:
      2026-01-02T09:00:00Z | .thehook/sessions/2026-01-02-0900-auth.md = id s-1, branch -
    session_keys:
      is-1 | .thehook/sessions/2026-01-02-0900-auth.md
      p.thehook/sessions/2026-01-02-0900-auth.md = id s-1, branch -
      tst.noisses/htua/crs = 1
      wsession | src/auth/session.ts
    ");
    let about = s
        .index
        .about_file(
            &FileNames {
                path: "src/auth/session.ts",
                ..FileNames::default()
            },
            10,
            10,
        )
        .unwrap();
    assert_eq!(about.sessions.len(), 1);
    assert!(s
        .index
        .about_file(
            &FileNames {
                path: "src/auth/jwt.ts",
                ..FileNames::default()
            },
            10,
            10
        )
        .unwrap()
        .sessions
        .is_empty());
    // Gone with the file, and its keys with it.
    s.remove(SESSION);
    s.sync(false);
    assert_eq!(paths_part(&s), "paths:\nsession_dates:\nsession_keys:\n");
}

#[test]
fn a_file_written_just_now_is_smudged_so_the_next_sync_reads_it_again() {
    let s = Scenario::new();
    std::fs::write(s.project.root().join(CONVENTIONS), "- Use pnpm\n").unwrap();
    s.sync(false);
    assert!(
        s.index.dump().contains("mtime smudged"),
        "{}",
        s.index.dump()
    );
    // The same bytes, in the window: not read again (hooks right after a
    // capture would each parse its file).
    assert_eq!(counts(&s.sync(false)), (0, 0, 0));
    // Same size, same second: only the smudge makes this edit visible.
    std::fs::write(s.project.root().join(CONVENTIONS), "- Use npm!\n").unwrap();
    assert_eq!(counts(&s.sync(false)), (1, 1, 1));
    // Once the file is older than the window, its mtime is trusted again:
    // read once more, and its record keeps the mtime, not the bytes' hash.
    set_mtime(&s.project.root().join(CONVENTIONS), 3);
    assert_eq!(counts(&s.sync(false)), (1, 0, 0));
    assert!(!s.index.dump().contains("mtime smudged"));
    assert_eq!(counts(&s.sync(false)), (0, 0, 0));
}

/// The dump's last line: which keys have a vector.
fn vectors_line(index: &Index) -> String {
    index.dump().lines().last().unwrap().to_string()
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn vectors_follow_the_items_and_a_lexical_index_gets_them_when_the_model_is_back() {
    let model = crate::model::tests::repo_assets();
    let mut s = Scenario::new();
    s.write(CONVENTIONS, "- Use pnpm\n- Tests live in __tests__/\n")
        .write(SESSION, &session(""));
    // Written without the model: items, no vectors, and the header says so.
    s.sync(false);
    assert_eq!(vectors_line(&s.index), "vectors: none");
    assert!(s.index.dump().contains("missing_vectors: true"));

    let stats = s.sync_with(&model, false);
    assert_eq!(stats.items_embedded, 4, "every stored item is backfilled");
    assert_eq!(
        vectors_line(&s.index),
        "vectors: 384 dims, items [0, 1, 2, 3]"
    );
    assert!(s.index.dump().contains("missing_vectors: false"));

    s.remove(SESSION);
    s.write(CONVENTIONS, "- Use pnpm\n- Lint before commit\n");
    let stats = s.sync_with(&model, false);
    assert_eq!(stats.items_embedded, 1, "only the new item is embedded");
    assert_eq!(vectors_line(&s.index), "vectors: 384 dims, items [0, 4]");
}

/// Six session files of three items each, written in the same order (so
/// with the same mtimes) in any scenario.
fn six_sessions(s: &mut Scenario) {
    for n in 0..6 {
        let rel = format!(".thehook/sessions/2026-01-0{}-0900-s{n}.md", n + 1);
        s.write(
            &rel,
            &session(&format!("- `[gotcha]` port 80{n} clashes\n")),
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn a_sync_in_batches_builds_what_one_transaction_builds() {
    let model = crate::model::tests::repo_assets();
    let sync = |s: &Scenario, batch_items: usize, rebuild: bool| {
        let plan = SyncPlan {
            batch_items,
            rebuild,
            ..SyncPlan::new(&model, Embedding::All, &|_, _| {})
        };
        s.index.sync(&s.project, &plan).unwrap()
    };
    let (mut whole, mut batched) = (Scenario::new(), Scenario::new());
    six_sessions(&mut whole);
    six_sessions(&mut batched);
    let one = sync(&whole, usize::MAX, false);
    // A transaction per file.
    let many = sync(&batched, 1, false);
    assert_eq!(one, many);
    assert_eq!(counts(&many), (6, 18, 0));
    assert_eq!(whole.index.dump(), batched.index.dump());
    assert!(batched
        .index
        .dump()
        .contains("vectors: 384 dims, items [0, 1, 2, 3, 4, 5,"));

    // A rebuild in batches: the same index, embedded again.
    let rebuilt = sync(&batched, 2, true);
    assert_eq!((rebuilt.items_added, rebuilt.items_embedded), (18, 18));
    assert_eq!(whole.index.dump(), batched.index.dump());
}

/// Between the transactions of a sync in batches, readers see vectors
/// whose trees the last batch has not built yet: they are still searched.
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn vectors_whose_trees_are_not_built_yet_are_searched_all_the_same() {
    use arroy::distances::BinaryQuantizedCosine;
    let model = crate::model::tests::repo_assets();
    let mut s = Scenario::new();
    six_sessions(&mut s);
    s.sync_with(&model, false);
    let index = &s.index;
    let mut wtxn = index.env.write_txn().unwrap();
    let vector = stored_vector(index, &wtxn, 7);
    let item = index.dbs.items.get(&wtxn, &7).unwrap().unwrap();
    // Stored again, as a batch before the last stores it: no trees built.
    let writer =
        arroy::Writer::<BinaryQuantizedCosine>::new(index.dbs.trees, super::TREES_INDEX, 384);
    writer.add_item(&mut wtxn, 7, &vector).unwrap();
    wtxn.commit().unwrap();

    let rtxn = index.env.read_txn().unwrap();
    let reader =
        arroy::Reader::<BinaryQuantizedCosine>::open(&rtxn, super::TREES_INDEX, index.dbs.trees);
    assert!(matches!(reader, Err(arroy::Error::NeedBuild(_))));
    // Searched as a large index is, through the trees: they are not there.
    let hits = index.nearest(&rtxn, &vector, 10, None, 0).unwrap();
    assert_eq!(hits.len(), 10);
    // Its text is in every session file: it ties with those items.
    assert!(hits[0].1 > 0.999, "{}", hits[0].1);
    assert!(hits.iter().any(|(key, _)| *key == 7), "{hits:?}");
    assert!(index.keys_without_vectors(&rtxn).unwrap().is_empty());
    let found = index
        .vector(&rtxn, &vector, 10, &super::Filter::default())
        .unwrap();
    assert!(found.iter().any(|(hit, _)| hit.id == item.id), "{found:?}");
}

/// A large index searches arroy's trees of one-bit codes, then ranks their
/// candidates by the vectors: where every item is a candidate, that is
/// exactly what comparing every vector gives, similarities included.
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn the_trees_candidates_ranked_by_their_vectors_give_the_exact_top() {
    let model = crate::model::tests::repo_assets();
    let mut s = Scenario::new();
    six_sessions(&mut s);
    s.write(
        CONVENTIONS,
        "- Use pnpm\n- Tests live in __tests__/\n- Lint before commit\n",
    );
    s.sync_with(&model, false);
    let index = &s.index;
    let rtxn = index.env.read_txn().unwrap();
    let lint = index.dbs.items.iter(&rtxn).unwrap().map(Result::unwrap);
    let (lint, _) = lint
        .into_iter()
        .find(|(_, i)| i.text == "Lint before commit")
        .unwrap();
    let query = stored_vector(index, &rtxn, lint);
    let exact = index.nearest(&rtxn, &query, 5, None, u64::MAX).unwrap();
    let through_trees = index.nearest(&rtxn, &query, 5, None, 0).unwrap();
    assert_eq!(exact.len(), 5);
    assert_eq!(exact[0], (lint, 1.0));
    assert!(exact[1].1 < 0.9, "one item says this: {exact:?}");
    assert_eq!(through_trees, exact);
    // A filter's candidates only.
    let allowed: roaring::RoaringBitmap = [1u32, 4, lint].into_iter().collect();
    let filtered = index.nearest(&rtxn, &query, 5, Some(&allowed), 0).unwrap();
    let keys: Vec<u32> = filtered.iter().map(|h| h.0).collect();
    assert_eq!(keys.len(), 3);
    assert_eq!(keys[0], lint);
    assert!(keys.iter().all(|k| allowed.contains(*k)), "{keys:?}");
}

#[test]
fn a_sync_capped_at_n_files_leaves_a_larger_pull_for_later() {
    let mut s = Scenario::new();
    let pull = |s: &mut Scenario, days: std::ops::Range<u32>| {
        for day in days {
            s.write(
                &format!(".thehook/sessions/2026-01-{day:02}-0900-pulled.md"),
                &session(""),
            );
        }
    };
    pull(&mut s, 1..4);
    let lexical = Availability::Missing {
        reason: "no model in this test".into(),
        fix: "".into(),
    };
    let capped = SyncPlan {
        max_files: Some(2),
        ..SyncPlan::new(&lexical, Embedding::All, &|_, _| {})
    };
    // An empty index (a fresh clone) takes the newest sessions at once.
    let stats = s.index.sync(&s.project, &capped).unwrap();
    assert_eq!((stats.files_postponed, stats.files_changed), (1, 2));
    let sessions: Vec<String> = s
        .index
        .sessions()
        .unwrap()
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert_eq!(
        sessions,
        [
            ".thehook/sessions/2026-01-02-0900-pulled.md",
            ".thehook/sessions/2026-01-03-0900-pulled.md"
        ]
    );
    // Without a cap, the rest.
    assert_eq!(s.sync(false).files_changed, 1);
    // A pull of more than the cap onto an index: the newest now, the rest
    // later; a session that went, and knowledge, whatever the cap.
    pull(&mut s, 4..7);
    s.remove(".thehook/sessions/2026-01-01-0900-pulled.md");
    s.write(CONVENTIONS, "- Use pnpm\n");
    let stats = s.index.sync(&s.project, &capped).unwrap();
    assert_eq!((stats.files_postponed, stats.files_changed), (1, 4));
    let sessions = |s: &Scenario| -> Vec<String> {
        let sessions = s.index.sessions().unwrap().into_iter();
        sessions.map(|r| r.path[18..28].to_string()).collect()
    };
    let indexed = ["2026-01-02", "2026-01-03", "2026-01-05", "2026-01-06"];
    assert_eq!(sessions(&s), indexed);
    assert_eq!(s.sync(false).files_changed, 1);
    let stats = s.index.sync(&s.project, &capped).unwrap();
    assert_eq!((stats.files_postponed, stats.files_changed), (0, 0));

    // What the answer is about comes first: the session on its branch,
    // then one on a file in play, older as they are.
    for (day, branch, file) in [
        (7, "main", "a.rs"),
        (8, "feat/x", "b.rs"),
        (9, "main", "c.rs"),
    ] {
        let front = format!("title: Auth\nbranch: {branch}\nfiles:\n- {file}");
        let text = session("").replace("title: Auth", &front);
        s.write(
            &format!(".thehook/sessions/2026-01-{day:02}-0900-x.md"),
            &text,
        );
    }
    let focus = Focus {
        branch: Some("feat/x".into()),
        files: vec!["a.rs".into()],
    };
    let focused = SyncPlan {
        max_files: Some(2),
        focus: Some(&focus),
        ..SyncPlan::new(&lexical, Embedding::All, &|_, _| {})
    };
    let stats = s.index.sync(&s.project, &focused).unwrap();
    assert_eq!((stats.files_postponed, stats.files_changed), (1, 2));
    let now = sessions(&s);
    assert!(now.contains(&"2026-01-08".to_string()), "{now:?}");
    assert!(now.contains(&"2026-01-07".to_string()), "{now:?}");
    assert!(!now.contains(&"2026-01-09".to_string()), "{now:?}");
}

#[test]
fn a_quick_sync_trusts_the_folders_until_one_moves() {
    let mut s = Scenario::new();
    let file = ".thehook/sessions/2026-01-01-0900-a.md";
    s.write(file, &session("- Gotcha: the first line"));
    // Older than the racy window, so the sync may record a stamp.
    for rel in [file, ".thehook/sessions", ".thehook/knowledge"] {
        s.long_ago(rel);
    }
    let lexical = Availability::Missing {
        reason: "no model in this test".into(),
        fix: "".into(),
    };
    let quick = SyncPlan {
        quick: true,
        ..SyncPlan::new(&lexical, Embedding::All, &|_, _| {})
    };
    assert_eq!(s.index.sync(&s.project, &quick).unwrap().files_changed, 1);
    assert!(s.index.header().unwrap().unwrap().stamp.is_some());
    // Edited in place, its folder unmoved: the quick sync does not look...
    s.write(file, &session("- Gotcha: the second line"));
    s.long_ago(".thehook/sessions");
    assert_eq!(s.index.sync(&s.project, &quick).unwrap().files_changed, 0);
    // ...a full one does.
    assert_eq!(s.sync(false).files_changed, 1);
    // A release asks for the file to be read again (no folder moves): so
    // does the quick sync, once the stamp is back.
    s.long_ago(".thehook/sessions");
    s.long_ago(file);
    assert_eq!(s.sync(false).files_changed, 1, "its mtime moved back");
    assert!(s.index.header().unwrap().unwrap().stamp.is_some());
    s.index.reread(file).unwrap();
    assert_eq!(s.index.sync(&s.project, &quick).unwrap().files_changed, 1);
    // A new file moves its folder: the quick sync sees it.
    s.write(".thehook/sessions/2026-01-02-0900-b.md", &session(""));
    assert_eq!(s.index.sync(&s.project, &quick).unwrap().files_changed, 1);
}

/// A recall trusts the folders' stamp, but items stored without vectors
/// (written while no model was at hand) must still get them: with the
/// stamp holding, a quick sync with the model embeds them, and one over
/// its embed limit says they wait (so recall starts `reindex --pending`).
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn a_quick_sync_with_the_model_still_embeds_what_waits_for_vectors() {
    let model = crate::model::tests::repo_assets();
    let mut s = Scenario::new();
    s.write(CONVENTIONS, "- Use pnpm\n- Tests live in __tests__/\n");
    for rel in [CONVENTIONS, ".thehook/sessions", ".thehook/knowledge"] {
        s.long_ago(rel);
    }
    // Written without the model: a stamp, and two items without vectors.
    s.sync(false);
    assert!(s.index.header().unwrap().unwrap().stamp.is_some());
    assert_eq!(vectors_line(&s.index), "vectors: none");
    let quick = |embedding| SyncPlan {
        quick: true,
        ..SyncPlan::new(&model, embedding, &|_, _| {})
    };
    let over_limit = s
        .index
        .sync(&s.project, &quick(Embedding::AtMost(1)))
        .unwrap();
    assert!(over_limit.vectors_missing, "{over_limit:?}");
    assert_eq!(vectors_line(&s.index), "vectors: none");
    let within = s.index.sync(&s.project, &quick(Embedding::All)).unwrap();
    assert_eq!(within.items_embedded, 2, "{within:?}");
    assert_eq!(vectors_line(&s.index), "vectors: 384 dims, items [0, 1]");
}

/// The hooks read the sessions from one stored list: it must say what the
/// file records say after every kind of change, and an index without it
/// (written before it existed) reads the records.
#[test]
fn the_stored_sessions_follow_every_change_to_a_session_file() {
    let mut s = Scenario::new();
    let stored_and_records = |s: &Scenario| {
        let rtxn = s.index.env.read_txn().unwrap();
        let stored = s.index.stored_sessions(&rtxn).unwrap();
        let records = s.index.sessions_from_records(&rtxn).unwrap();
        (stored, records)
    };
    let titles = |s: &Scenario| -> Vec<String> {
        let sessions = s.index.sessions().unwrap();
        sessions.into_iter().filter_map(|r| r.title).collect()
    };
    s.write(SESSION, &session(""))
        .write(CONVENTIONS, "- Use pnpm\n");
    s.sync(false);
    let (stored, records) = stored_and_records(&s);
    assert_eq!(stored.as_ref(), Some(&records));
    assert_eq!(titles(&s), ["Auth"]);

    s.write(
        SESSION,
        &session("").replace("title: Auth", "title: Auth, again"),
    );
    six_sessions(&mut s);
    s.sync(false);
    let (stored, records) = stored_and_records(&s);
    assert_eq!(stored.as_ref(), Some(&records));
    assert_eq!(titles(&s).len(), 7);
    assert!(titles(&s).contains(&"Auth, again".to_string()));

    s.remove(SESSION);
    s.sync(false);
    let (stored, records) = stored_and_records(&s);
    assert_eq!(stored.as_ref(), Some(&records));
    assert_eq!(records.len(), 6);

    s.sync(true);
    let (stored, records) = stored_and_records(&s);
    assert_eq!(stored.as_ref(), Some(&records));

    // An index written before the list: the records are read.
    let mut wtxn = s.index.env.write_txn().unwrap();
    s.index.forget_sessions(&mut wtxn).unwrap();
    wtxn.commit().unwrap();
    assert_eq!(stored_and_records(&s).0, None);
    assert_eq!(s.index.sessions().unwrap(), records);
}

/// The hooks ask the index's keys what they once asked every record
/// (`memory/session_lookup.rs`): seeded sessions (dates that tie, shared
/// ids, branches, files by tail and by name), then edits and removals; at
/// each step every question gets the answer the records give.
#[test]
fn the_keyed_sessions_answer_as_the_records_do() {
    use crate::memory::session_lookup::{
        SessionList, SessionLookup, SessionsByAge, SessionsByFile,
    };
    use std::collections::HashSet;

    const FILES: [&str; 9] = [
        "src/auth/session.ts",
        "lib/session.ts",
        "session.ts",
        "cmd/rewind.go",
        "manual_commit_hooks.go",
        "README.md",
        "docs/rewind.md",
        "src/a.rs",
        "src/b.rs",
    ];
    const BRANCHES: [&str; 3] = ["main", "feat/x", "fix/y"];
    let mut next = crate::memory::session_lookup::seeded(0x5eed_1e55);
    let mut s = Scenario::new();
    let write_session = |s: &mut Scenario, n: usize, next: &mut dyn FnMut(usize) -> usize| {
        let files: Vec<&str> = (0..1 + next(3)).map(|_| FILES[next(FILES.len())]).collect();
        let list: String = files.iter().map(|f| format!("- {f}\n")).collect();
        let branch = match next(4) {
            3 => String::new(),
            b => format!("branch: {}\n", BRANCHES[b]),
        };
        // Days and hours that repeat: dates tie.
        let date = format!("2026-01-{:02}T{:02}:00:00Z", 1 + next(9), 9 + next(2));
        let text = format!(
            "---\nsession_id: s-{}\ndate: {date}\n{branch}title: Work {n}\nfiles:\n{list}---\n\
             ## Session Summary\n- **What was done**: step {n}\n",
            next(30)
        );
        s.write(
            &format!(".thehook/sessions/2026-01-01-0900-w{n:02}.md"),
            &text,
        );
    };
    let check = |s: &Scenario, step: &str| {
        let records = s.index.sessions().unwrap();
        let analyzer = crate::text::analysis::lexical::Analyzer::default();
        let list = SessionList::new(&records, &analyzer);
        let keyed = s.index.session_lookup().unwrap();
        let paths: HashSet<String> = records.iter().map(|r| r.path.clone()).collect();
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        for current in [None, Some("s-3"), Some("s-none")] {
            let at = format!("{step}, current {current:?}");
            assert_eq!(
                keyed.count(current).unwrap(),
                list.count(current).unwrap(),
                "{at}"
            );
            assert_eq!(
                keyed.newest(7, current).unwrap(),
                list.newest(7, current).unwrap(),
                "{at}"
            );
            for branch in BRANCHES {
                assert_eq!(
                    keyed.of_branch(branch, 4, current).unwrap(),
                    list.of_branch(branch, 4, current).unwrap(),
                    "{at}, {branch}"
                );
            }
            let walk = |lookup: &dyn SessionLookup| {
                let mut seen = Vec::new();
                lookup
                    .walk_newest(current, &mut |age, path| {
                        seen.push((age, path.to_string()));
                        true
                    })
                    .unwrap();
                seen
            };
            assert_eq!(walk(&keyed), walk(&list), "{at}");
            assert_eq!(
                keyed.paths_of(current).unwrap(),
                list.paths_of(current).unwrap(),
                "{at}"
            );
        }
        for file in FILES {
            assert_eq!(
                sorted(keyed.touching(file).unwrap()),
                sorted(list.touching(file).unwrap()),
                "{step}, {file}"
            );
        }
        // The newest on some files, in order, stopped after a few.
        let newest_on = |lookup: &dyn SessionLookup, files: &[String], n: usize| {
            let mut seen = Vec::new();
            lookup
                .newest_touching(files, &mut |path| {
                    seen.push(path.to_string());
                    Ok(seen.len() < n)
                })
                .unwrap();
            seen
        };
        for (i, files) in [
            vec![],
            vec![FILES[0]],
            vec![FILES[0], FILES[1], FILES[2]],
            vec![FILES[3], FILES[4], FILES[5], "no/such/file.rs"],
            FILES.to_vec(),
        ]
        .iter()
        .enumerate()
        {
            let files: Vec<String> = files.iter().map(|f| f.to_string()).collect();
            for n in [1, 3, usize::MAX] {
                let got = newest_on(&keyed, &files, n);
                assert_eq!(got, newest_on(&list, &files, n), "{step}, files {i}, {n}");
                let distinct: HashSet<&String> = got.iter().collect();
                assert_eq!(distinct.len(), got.len(), "each once: {got:?}");
            }
        }
        for tail in [
            "session.ts",
            "auth/session.ts",
            "rewind.go",
            "a.rs",
            "ession.ts",
        ] {
            assert_eq!(
                keyed.files_ending(tail).unwrap(),
                list.files_ending(tail).unwrap(),
                "{step}, {tail}"
            );
        }
        for word in ["session", "rewind", "commit", "hooks", "readme", "nothing"] {
            assert_eq!(
                keyed.files_named_with(word).unwrap(),
                list.files_named_with(word).unwrap(),
                "{step}, {word}"
            );
        }
        let by_path = |mut keys: Vec<crate::memory::session_lookup::SessionKey>| {
            keys.sort_by(|a, b| a.path.cmp(&b.path));
            keys
        };
        assert_eq!(
            by_path(keyed.keys(&paths).unwrap()),
            by_path(list.keys(&paths).unwrap()),
            "{step}"
        );
        for files in [
            &["src/a.rs".to_string()][..],
            &["README.md".into(), "cmd/rewind.go".into()],
        ] {
            assert_eq!(
                keyed.which_changed(&paths, files).unwrap(),
                list.which_changed(&paths, files).unwrap(),
                "{step}, {files:?}"
            );
        }
        let first = &records[0].path;
        assert_eq!(keyed.record(first).unwrap().as_ref(), Some(&records[0]));
        records.len()
    };
    for n in 0..40 {
        write_session(&mut s, n, &mut next);
    }
    s.sync(false);
    assert_eq!(check(&s, "first sync"), 40);
    for n in (0..40).step_by(3) {
        write_session(&mut s, n, &mut next);
    }
    for n in (1..40).step_by(4) {
        s.remove(&format!(".thehook/sessions/2026-01-01-0900-w{n:02}.md"));
    }
    s.sync(false);
    assert_eq!(check(&s, "edits and removals"), 30);
    s.sync(true);
    assert_eq!(check(&s, "a rebuild"), 30);
    let rebuilt = s.index.dump();
    // Transactions of 4 items (2 sessions): the list and the keys are
    // written once, in the last, from every record.
    assert_eq!(s.rebuild_in_batches(4).files_changed, 30);
    assert_eq!(check(&s, "a rebuild in batches"), 30);
    assert_eq!(s.index.dump(), rebuilt);
    let rtxn = s.index.env.read_txn().unwrap();
    let stored = s.index.stored_sessions(&rtxn).unwrap();
    assert_eq!(stored, Some(s.index.sessions_from_records(&rtxn).unwrap()));
}

/// An index of the schemas before (13: no sessions' keys; 14: no verdicts
/// on action lines) is upgraded where it stands: the same databases a sync
/// writes, nothing rebuilt (a team's year would be minutes of embedding).
/// Outside git, who wrote the action line cannot be told: withheld.
#[test]
fn an_index_of_the_schemas_before_is_upgraded_without_a_rebuild() {
    for schema in super::UPGRADED_IN_PLACE {
        let mut s = Scenario::new();
        six_sessions(&mut s);
        s.write(
            ".thehook/knowledge/conventions.md",
            "# Conventions\n\n- Use pnpm\n- Install `fixture-loader==0.4.1` first\n",
        );
        s.sync(false);
        let synced = s.index.dump();
        assert!(synced.contains("first\" withheld:unverified"), "{synced}");
        assert!(synced.contains("keys [0, 1], asks\n"), "{synced}");
        // As the schema before left it: no verdict on the line, no mark.
        let mut wtxn = s.index.env.write_txn().unwrap();
        if schema < super::SESSION_KEYS_SINCE {
            s.index.forget_session_keys(&mut wtxn).unwrap();
        }
        let mut item = s.index.dbs.items.get(&wtxn, &1).unwrap().unwrap();
        item.withheld = None;
        s.index.dbs.items.put(&mut wtxn, &1, &item).unwrap();
        let rel = ".thehook/knowledge/conventions.md";
        let mut record = s.index.dbs.files.get(&wtxn, rel).unwrap().unwrap();
        record.asks = false;
        s.index.dbs.files.put(&mut wtxn, rel, &record).unwrap();
        let mut header = s.index.dbs.header.get(&wtxn, "header").unwrap().unwrap();
        header.schema = schema;
        header.trust = None;
        s.index
            .dbs
            .header
            .put(&mut wtxn, "header", &header)
            .unwrap();
        wtxn.commit().unwrap();
        let before = s.index.dump();
        assert!(!before.contains("withheld:"), "{before}");
        assert_eq!(
            before.contains("session_dates:\n  2026"),
            schema >= super::SESSION_KEYS_SINCE
        );

        let (index, rebuilt) = Index::open(&s.project, LEXICAL_ONLY).unwrap();
        assert_eq!(rebuilt, None, "upgraded, not rebuilt");
        s.index = index;
        let stats = s.sync(false);
        assert_eq!(
            stats.files_changed, 1,
            "the file with the action line, judged again"
        );
        assert_eq!(s.index.dump(), synced);
    }
}

/// A file path near LMDB's key limit (511 bytes) with a long name: the
/// sync succeeds and the file is found by the tail of its path. (A word
/// key that would pass the limit is left out; this name's is not that
/// long once analysed.)
#[test]
fn a_session_on_a_file_with_a_very_long_path_still_syncs() {
    use crate::memory::session_lookup::SessionsByFile;
    let mut s = Scenario::new();
    let name = format!("{}.rs", "n".repeat(230));
    let long = format!("src/{}/{name}", "d".repeat(200));
    let text = session("").replacen(
        "title: Auth\n",
        &format!("title: Auth\nfiles:\n- {long}\n"),
        1,
    );
    s.write(SESSION, &text);
    assert_eq!(counts(&s.sync(false)).0, 1);
    let found = s
        .index
        .session_lookup()
        .unwrap()
        .files_ending(&name)
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, long);
}
