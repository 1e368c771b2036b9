//! Memory that changed reaches the very next hook: a knowledge file and a
//! session file edited (in place, the same size, in the same second as the
//! last sync), added, renamed and removed, a `git pull` and a `git
//! checkout` of another branch, each followed at once by the session-start,
//! prompt and file hooks and by an MCP server's `recall` that was running
//! all along. After each, the new text is given by all four and the
//! removed text by none. Run with the model (the hooks judge what changed
//! with the learned check before giving it) and lexical-only.

use serde_json::json;

use crate::common::*;
use crate::mcp::Client;

/// The file every planted line names, for the file hook.
const SOURCE: &str = "src/billing/invoice.rs";

/// A knowledge line naming `token`.
fn convention(token: &str) -> String {
    format!("- Totals in `{SOURCE}` are rounded with the {token} scheme\n")
}

/// A captured session whose title, gist and gotcha name `token`.
fn session(token: &str) -> String {
    format!(
        "---\nsession_id: sess-{token}\nagent: claude-code\ndate: 2026-11-02T09:00:00Z\n\
         branch: main\ntitle: Invoice rounding {token}\nfiles:\n- {SOURCE}\n---\n\
         ## Session Summary\n- **What was done**: Rounded totals in `{SOURCE}` with the {token} scheme\n\n\
         ## Gotchas\n- `{SOURCE}` rounds half-even under the {token} scheme\n"
    )
}

/// The four ways memory reaches an agent, asked in turn after each change,
/// each round as new sessions (so nothing counts as given already).
struct Agents<'p> {
    p: &'p Project,
    mcp: Client,
    round: u64,
}

impl<'p> Agents<'p> {
    fn new(p: &'p Project) -> Agents<'p> {
        Agents {
            p,
            mcp: Client::start(p),
            round: 0,
        }
    }

    /// What the session start, the prompt hook, the file hook and MCP
    /// `recall` give right now, asked about `token`.
    fn answers(&mut self, token: &str) -> [String; 4] {
        self.round += 1;
        let id = |way: &str| format!("round-{}-{way}", self.round);
        let p = self.p;
        let start = json!({
            "session_id": id("start"),
            "cwd": p.root(),
            "hook_event_name": "SessionStart",
            "source": "startup",
        });
        let start = p.hook_answer("retrieve", &start);
        let prompt = format!("how are totals in {SOURCE} rounded, the {token} scheme?");
        let prompt = p.prompted(&id("prompt"), &prompt);
        let file = p.touched(&id("file"), "Read", SOURCE, json!({}));
        let (recall, failed) = self.mcp.call(
            1000 + self.round,
            "recall",
            json!({"query": format!("{token} scheme"), "k": 5}),
        );
        assert!(!failed, "{recall}");
        [start, prompt, file, recall]
    }

    /// Asserts that all four give `present` and none gives `gone`.
    fn expect(&mut self, step: &str, present: &str, gone: Option<&str>) {
        let answers = self.answers(present);
        let ways = ["session start", "prompt hook", "file hook", "MCP recall"];
        for (way, answer) in ways.iter().zip(&answers) {
            assert!(
                answer.contains(present),
                "{step}: the {way} does not give `{present}`:\n{answer}\nhooks.log:\n{}",
                self.p.hook_log()
            );
        }
        if let Some(gone) = gone {
            let answers = self.answers(gone);
            for (way, answer) in ways.iter().zip(&answers) {
                assert!(
                    !answer.contains(gone),
                    "{step}: the {way} still gives `{gone}`:\n{answer}"
                );
            }
        }
    }
}

/// Dates every memory file and folder an hour back, then lets a hook sync:
/// the index now trusts its stamp (nothing is within the racy window), as
/// on a machine where the last change was a while ago.
fn settle(agents: &mut Agents) {
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for dir in ["knowledge", "sessions"] {
        let dir = agents.p.thehook().join(dir);
        let mut paths = walk(&dir);
        paths.push(dir);
        for path in paths {
            let f = std::fs::File::open(&path).unwrap();
            f.set_modified(an_hour_ago).unwrap();
        }
    }
    agents.answers("settle");
}

fn commit(p: &Project, message: &str) {
    git(p.root(), &["add", "-A"]);
    git(p.root(), &["commit", "-qm", message]);
}

/// A git project with memory, committed, and a bare origin it pushed to.
fn project(p: &Project) -> tempfile::TempDir {
    let origin = tempfile::tempdir().unwrap();
    git(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
    git(p.root(), &["init", "-q", "-b", "main"]);
    p.write(".git/info/exclude", "home/\nno-cache/\nno-model/\n");
    p.ok(&["init", "--agent", "claude-code"]);
    p.write(SOURCE, "pub fn total() -> u64 { 0 }\n");
    commit(p, "init");
    let url = origin.path().to_string_lossy().into_owned();
    git(p.root(), &["remote", "add", "origin", &url]);
    git(p.root(), &["push", "-q", "origin", "main"]);
    origin
}

/// Every kind of change, each followed at once by all four ways in.
fn every_change_reaches_the_next_hook(p: &Project) {
    let origin = project(p);
    let mut agents = Agents::new(p);
    let conventions = ".thehook/knowledge/conventions.md";
    let base = "# Conventions\n\n- Run the tests with `cargo test`\n";

    // A knowledge file edited by hand, right after init's sync.
    settle(&mut agents);
    p.write(conventions, format!("{base}{}", convention("kkpalpha")));
    agents.expect("knowledge edited", "kkpalpha", None);
    // The same size, in the same second as the hooks' last sync.
    p.write(conventions, format!("{base}{}", convention("kkpbravo")));
    agents.expect("knowledge edited again", "kkpbravo", Some("kkpalpha"));

    // The same size again, written by a clock that moved backwards: its
    // mtime older than the one recorded.
    settle(&mut agents);
    p.write(conventions, format!("{base}{}", convention("kkpbrav2")));
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    let file = std::fs::File::options()
        .write(true)
        .open(p.root().join(conventions))
        .unwrap();
    file.set_modified(two_hours_ago).unwrap();
    agents.expect("knowledge edited, clock back", "kkpbrav2", Some("kkpbravo"));
    p.write(conventions, format!("{base}{}", convention("kkpbravo")));

    // A knowledge file added, renamed, removed.
    let billing = ".thehook/knowledge/billing.md";
    settle(&mut agents);
    p.write(billing, convention("kkpcharl"));
    agents.expect("knowledge added", "kkpcharl", None);
    let money = ".thehook/knowledge/money.md";
    settle(&mut agents);
    std::fs::rename(p.root().join(billing), p.root().join(money)).unwrap();
    agents.expect("knowledge renamed", "money.md", Some("billing.md"));
    settle(&mut agents);
    std::fs::remove_file(p.root().join(money)).unwrap();
    agents.expect("knowledge removed", "kkpbravo", Some("kkpcharl"));

    // A session file added, edited in place, renamed, removed.
    let captured = ".thehook/sessions/2026-11-02-0900-invoice.md";
    settle(&mut agents);
    p.write(captured, session("kkpdelta"));
    agents.expect("session added", "kkpdelta", None);
    settle(&mut agents);
    p.write(captured, session("kkpecho1"));
    agents.expect("session edited in place", "kkpecho1", Some("kkpdelta"));
    // Again, the same size, in the same second as the last sync.
    p.write(captured, session("kkpecho2"));
    agents.expect("session edited again", "kkpecho2", Some("kkpecho1"));
    let renamed = ".thehook/sessions/2026-11-02-0900-rounding.md";
    settle(&mut agents);
    std::fs::rename(p.root().join(captured), p.root().join(renamed)).unwrap();
    agents.expect(
        "session renamed",
        "0900-rounding.md",
        Some("0900-invoice.md"),
    );
    settle(&mut agents);
    std::fs::remove_file(p.root().join(renamed)).unwrap();
    agents.expect("session removed", "kkpbravo", Some("kkpecho2"));
    commit(p, "memory");
    git(p.root(), &["push", "-q", "origin", "main"]);

    // A teammate's session and knowledge edit, pulled.
    let mate = Project::empty().lexical_only();
    let url = origin.path().to_string_lossy().into_owned();
    git(mate.root(), &["clone", "-q", &url, "."]);
    mate.write(
        ".thehook/sessions/2026-11-03-1000-mate.md",
        session("kkpfoxtr"),
    );
    let edited = mate.read(conventions).replace("kkpbravo", "kkpgolfx");
    mate.write(conventions, edited);
    commit(&mate, "a teammate's memory");
    git(mate.root(), &["push", "-q", "origin", "main"]);
    settle(&mut agents);
    git(p.root(), &["pull", "-q", "--ff-only", "origin", "main"]);
    agents.expect("pulled session", "kkpfoxtr", None);
    agents.expect("pulled knowledge", "kkpgolfx", Some("kkpbravo"));

    // Another branch, whose memory says otherwise, checked out and back.
    settle(&mut agents);
    git(p.root(), &["checkout", "-q", "-b", "other"]);
    let other = p.read(conventions).replace("kkpgolfx", "kkphotel");
    settle(&mut agents);
    p.write(conventions, other);
    commit(p, "other memory");
    agents.expect("branch written", "kkphotel", Some("kkpgolfx"));
    settle(&mut agents);
    git(p.root(), &["checkout", "-q", "main"]);
    agents.expect("checked out main", "kkpgolfx", Some("kkphotel"));
    settle(&mut agents);
    git(p.root(), &["checkout", "-q", "other"]);
    agents.expect("checked out other", "kkphotel", Some("kkpgolfx"));
}

#[test]
fn memory_that_changed_reaches_the_next_hook_lexical_only() {
    every_change_reaches_the_next_hook(&Project::empty().lexical_only());
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn memory_that_changed_reaches_the_next_hook_judged_by_the_learned_check() {
    every_change_reaches_the_next_hook(&Project::empty());
}

/// A pull of more sessions than a hook indexes while the agent waits: the
/// knowledge edit and the session of this branch are given at once (the
/// latter though it is the oldest), the log says what was left, and the
/// detached half's full sync brings the rest.
fn a_large_pull_gives_what_the_answer_needs_first(p: &Project) {
    let origin = project(p);
    let conventions = ".thehook/knowledge/conventions.md";
    p.write(conventions, convention("kkpbase1"));
    commit(p, "memory");
    git(p.root(), &["push", "-q", "origin", "main"]);
    let mut agents = Agents::new(p);
    settle(&mut agents);

    let mate = Project::empty().lexical_only();
    let url = origin.path().to_string_lossy().into_owned();
    git(mate.root(), &["clone", "-q", &url, "."]);
    mate.write(conventions, convention("kkpknown"));
    let ours = session("kkpoursx").replace("2026-11-02", "2026-10-01");
    mate.write(".thehook/sessions/2026-10-01-0900-ours.md", ours);
    for day in 1..=20 {
        let token = format!("kkpother{day:02}");
        let theirs = session(&token)
            .replace("branch: main", "branch: feat/other")
            .replace(SOURCE, "src/other.rs");
        mate.write(
            &format!(".thehook/sessions/2026-11-{day:02}-0900-theirs.md"),
            theirs,
        );
    }
    commit(&mate, "a teammate's week");
    git(mate.root(), &["push", "-q", "origin", "main"]);
    git(p.root(), &["pull", "-q", "--ff-only", "origin", "main"]);

    agents.expect("pulled knowledge", "kkpknown", Some("kkpbase1"));
    let log = p.hook_log();
    assert!(
        log.contains("left 13 for the background sync"),
        "8 of 21 new sessions indexed at once:\n{log}"
    );
    agents.expect("this branch's session", "kkpoursx", None);
    // What the hooks left, the session start's detached half syncs (each
    // later hook also takes the next of them); then the oldest of the other
    // branch's sessions is found (the session start names the 5 latest).
    p.ok(&["reindex", "--pending"]);
    let ask = "what is the kkpother01 scheme about?";
    let prompt = p.prompted("after-the-full-sync", ask);
    assert!(prompt.contains("kkpother01"), "{prompt}");
}

#[test]
fn a_large_pull_gives_what_the_answer_needs_first_lexical_only() {
    a_large_pull_gives_what_the_answer_needs_first(&Project::empty().lexical_only());
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn a_large_pull_gives_what_the_answer_needs_first_judged_by_the_learned_check() {
    let p = Project::empty();
    a_large_pull_gives_what_the_answer_needs_first(&p);
    let log = p.hook_log();
    assert!(
        log.contains("wait for the safety check (not given until then)"),
        "more new texts than a hook judges:\n{log}"
    );
}
