use super::*;
use crate::capture::queue::{file_stem, Job};
use crate::capture::steps::condense::{llm_input, MAX_INPUT};
use crate::capture::steps::read::has_conversation;
use crate::text::redact::Findings;
use crate::transcript::{self, CondenseOptions};
use crate::transcript::{Condensed, Weight};

fn condensed(lines: &[(Weight, &str)]) -> Condensed {
    Condensed {
        lines: lines.iter().map(|(w, l)| (*w, l.to_string())).collect(),
    }
}

#[test]
fn a_long_transcript_loses_narration_first_and_from_the_middle() {
    use Weight::*;
    let c = condensed(&[
        (Fact, "[1] user: add a health check"),
        (Narration, "[2] assistant: let me look around first"),
        (Tool, "[3] assistant: → Bash ls"),
        (Narration, "[4] assistant: now the server, which starts in server.js and listens on the port the environment gives"),
        (Fact, "[5] assistant: → Edit server.js"),
        (Narration, "[6] assistant: checking"),
        (Conclusion, "[7] assistant: the check answers on /healthz"),
    ]);
    let all = c.text();
    assert_eq!(c.fit(all.len()), all);
    // Room for all but about one narration line: the middle one goes.
    let cut = c.fit(all.len() - 10);
    assert!(!cut.contains("now the server"), "{cut}");
    assert!(
        cut.contains("let me look around") && cut.contains("checking"),
        "{cut}"
    );
    assert!(cut.contains("[… 1 line(s) left out …]"), "{cut}");
    // Less room: every narration and tool line goes before a conclusion.
    let cut = c.fit(180);
    assert!(
        cut.contains("health check") && cut.contains("Edit server.js"),
        "{cut}"
    );
    assert!(cut.contains("/healthz"), "{cut}");
    assert!(
        !cut.contains("→ Bash ls") && !cut.contains("checking"),
        "{cut}"
    );
}

#[test]
fn facts_alone_too_long_keep_their_start_and_end_at_line_boundaries() {
    let lines: Vec<String> = (0..4000)
        .map(|i| format!("[{i}] user: line {i} é"))
        .collect();
    let c = Condensed {
        lines: lines.iter().map(|l| (Weight::Fact, l.clone())).collect(),
    };
    let cut = c.fit(MAX_INPUT);
    assert!(cut.len() <= MAX_INPUT + 100, "{}", cut.len());
    assert!(cut.starts_with("[0] user: line 0 é\n"));
    assert!(cut.ends_with("[3999] user: line 3999 é\n"));
    let marker = cut
        .lines()
        .find(|l| l.starts_with("[… "))
        .expect("a marker line");
    assert!(marker.contains("characters of the middle of the session left out"));
    // Every kept line is whole.
    assert!(cut
        .lines()
        .all(|l| l.ends_with(" é") || l.starts_with("[… ")));
}

/// The size of the extraction prompt over the shared real transcripts
/// (each session file, its subagents with it), printed for docs/capture.md
/// (`--nocapture`): p90 within 24 KB.
#[test]
fn prompts_for_real_transcripts_stay_small() {
    use crate::agents::read::tests::{corpus, transcript_files};
    let (mut sizes, mut uncut): (Vec<usize>, Vec<usize>) = transcript_files(&corpus())
        .iter()
        .filter(|p| !p.to_string_lossy().contains("agent-"))
        .filter_map(|p| crate::agents::read::load(p).ok())
        .filter(has_conversation)
        .map(|mut t| {
            crate::transcript::redact_transcript(&mut t, &mut Findings::default());
            let whole = transcript::condense(&t, &CondenseOptions::default()).len();
            (crate::capture::extract::prompt(&llm_input(&t)).len(), whole)
        })
        .unzip();
    sizes.sort_unstable();
    uncut.sort_unstable();
    let at = |v: &[usize], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    eprintln!(
        "extraction prompt over {} real transcripts: p50 {} B, p90 {} B, max {} B (condensed before the cut: p50 {} B, p90 {} B, max {} B)",
        sizes.len(),
        at(&sizes, 0.5),
        at(&sizes, 0.9),
        sizes[sizes.len() - 1],
        at(&uncut, 0.5),
        at(&uncut, 0.9),
        uncut[uncut.len() - 1],
    );
    // 33 with the shared corpus, 10 with the vendored fixtures alone.
    assert!(sizes.len() >= 10, "{} transcripts", sizes.len());
    assert!(at(&sizes, 0.9) <= 24 * 1024, "p90 {}", at(&sizes, 0.9));
}

#[test]
fn cursor_transcripts_are_found_by_session_id_but_never_outside_their_folder() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".cursor/projects/p/agent-transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("abc-123.jsonl"), "{}").unwrap();
    let project = tempfile::tempdir().unwrap();
    let paths = SearchPaths::default();
    let around = Surroundings {
        path: None,
        home: Some(home.path().to_path_buf()),
    };
    let worker = Worker::new(Project::at(project.path()), &paths, around).unwrap();
    let job = |id: &str| Job {
        version: crate::capture::queue::JOB_VERSION,
        session_id: id.into(),
        agent: crate::agents::Agent::Cursor,
        transcript_path: None,
        cwd: None,
        origin: "hook".into(),
        queued_at: "2026-01-01T00:00:00Z".into(),
        reason: None,
    };
    let home = worker.workbench.around.home.as_deref();
    let locate = |id: &str| {
        crate::capture::steps::locate::transcript(
            &job(id),
            &file_stem(id),
            &worker.workbench.project,
            home,
        )
        .ok()
    };
    assert_eq!(locate("abc-123"), Some(dir.join("abc-123.jsonl")));
    assert_eq!(locate("../../../../etc/passwd"), None);
}

/// Facts a reviewer marked in three shared transcripts, copied to
/// `tests/fixtures/marked-facts/` (what was asked,
/// decided, broken, changed and tested, from their start, middle and end),
/// each of which must reach the LLM after the cut.
const MARKED_FACTS: &[(&str, &[(&str, &str)])] = &[
    (
        "claude-code/DRMacIver-claude-reliability/python-to-rust-port.jsonl",
        &[
            ("ask", "Port this Python project to Rust."),
            (
                "ask",
                "keep the Justfile - update it to run Rust tests instead",
            ),
            ("ask", "tests pass, and you have 100% coverage"),
            ("ask", "Cannot exit with unstaged changes, untracked files."),
            ("decision", "use a generic approach with an enum"),
            ("decision", "one uncovered region in math_utils.rs"),
            (
                "decision",
                "delete the Python source files (not the plugin scripts)",
            ),
            (
                "decision",
                "Python config files (pyproject.toml and uv.lock)",
            ),
            (
                "decision",
                "instead of raising exceptions for `factorial()`",
            ),
            ("file", "/tmp/tmpqwh7888i/src/list_utils.rs"),
            ("file", "/tmp/tmpqwh7888i/Justfile"),
            ("test", "test result: ok. 29 passed; 0 failed"),
        ],
    ),
    (
        "codex/yoavf-ai-sessions/codex-pomodor-timer.jsonl",
        &[
            ("ask", "Build a simple Pomodoro timer web app"),
            (
                "ask",
                "switch to a 5-minute break when the work session ends",
            ),
            ("ask", "keep it pure HTML, CSS, and JS"),
            ("ask", "add smooth transitions between states"),
            ("ask", "add a Pause/Resume feature"),
            ("decision", "No automated tests run"),
            ("decision", "a Web Audio chime when each phase ends"),
            (
                "decision",
                "Added mode-based color themes with smooth transitions",
            ),
            (
                "decision",
                "Added a dedicated pause control between Start and Reset",
            ),
            (
                "error",
                "verification failed: Failed to find expected lines",
            ),
            ("file", "index.html"),
            ("file", "styles.css"),
        ],
    ),
    (
        "claude-code/entireio-cli/4c_70d9b5734c_0/c010174c-a7cd-4bcc-b7d4-61258d6c463f.jsonl",
        &[
            ("ask", "Add custom `UnmarshalJSON` to `GeminiMessage`"),
            (
                "ask",
                "fails when encountering an array where a string is expected",
            ),
            ("ask", "commit this, push and open a draft PR"),
            ("decision", "implement the fix following TDD"),
            ("decision", "the fix is backward-compatible"),
            ("decision", "embedded field order and unwrapped error"),
            (
                "decision",
                "the key regression test that would have caught this bug",
            ),
            ("error", "--- FAIL: TestParseTranscript_ArrayContent"),
            ("file", "cmd/entire/cli/agent/geminicli/transcript_test.go"),
            ("file", "cmd/entire/cli/agent/geminicli/transcript.go"),
            ("file", "cmd/entire/cli/strategy/manual_commit_test.go"),
            ("test", "--- PASS: TestExtractUserPrompts (0.00s)"),
        ],
    ),
];

#[test]
fn the_facts_a_reviewer_marked_survive_the_cut() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/marked-facts");
    let mut lost = Vec::new();
    for (file, facts) in MARKED_FACTS {
        let mut t = crate::agents::read::load(&dir.join(file)).unwrap();
        crate::transcript::redact_transcript(&mut t, &mut Findings::default());
        let input = llm_input(&t);
        let sent = crate::capture::extract::prompt(&input);
        assert!(sent.len() <= 24 * 1024, "{file}: {} bytes", sent.len());
        for (kind, fact) in *facts {
            if !sent.contains(fact) {
                lost.push(format!("{file}: {kind} {fact:?}"));
            }
        }
    }
    assert!(lost.is_empty(), "lost in the cut:\n{}", lost.join("\n"));
}

/// Session files are committed: captured from the shared real transcripts
/// (absolute paths under `/Users/<name>/` and `/home/<name>/` throughout),
/// no file under `.thehook/sessions/` names a home folder or the session's
/// own working folder, and the files each one records are relative paths
/// inside the repository.
#[test]
fn session_files_from_real_transcripts_hold_no_absolute_or_home_path() {
    use crate::agents::read::tests::{corpus, transcript_files};
    let home_path = regex::Regex::new(r"/Users/[^/\s]|/home/[^/\s]|[A-Za-z]:\\Users\\").unwrap();
    let project = tempfile::tempdir().unwrap();
    let paths = SearchPaths::default();
    // No LLM on PATH: every file is the heuristic one, which quotes the
    // transcript most directly.
    let around = Surroundings {
        path: None,
        home: None,
    };
    let mut worker = Worker::new(Project::at(project.path()), &paths, around).unwrap();
    let mut cwds = Vec::new();
    for path in transcript_files(&corpus())
        .iter()
        .filter(|p| !p.to_string_lossy().contains("agent-"))
    {
        let Ok(t) = crate::agents::read::load(path) else {
            continue;
        };
        if t.session_id.is_none() || !has_conversation(&t) {
            continue;
        }
        cwds.extend(t.cwd.clone().filter(|c| c.len() > 1));
        worker.capture_file(path).unwrap();
    }
    let written: Vec<(String, String)> =
        walkdir::WalkDir::new(project.path().join(".thehook/sessions"))
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let text = std::fs::read_to_string(e.path()).unwrap();
                (e.path().display().to_string(), text)
            })
            .collect();
    assert!(written.len() >= 8, "{} session files", written.len());
    assert!(cwds.len() >= 8, "{} working folders", cwds.len());
    let mut with_files = 0;
    for (path, text) in &written {
        assert!(
            !home_path.is_match(text),
            "{path} names a home folder:\n{text}"
        );
        for cwd in &cwds {
            assert!(!text.contains(cwd.as_str()), "{path} names {cwd}:\n{text}");
        }
        let parsed = crate::store::parse_markdown("s.md", text, "2026-01-01T00:00:00Z");
        let files = &parsed.front_matter.files;
        with_files += usize::from(!files.is_empty());
        for f in files {
            assert!(
                !f.starts_with('/') && !f.starts_with('~') && !f.split('/').any(|p| p == ".."),
                "{path}: {f} is not a path inside the repository"
            );
        }
    }
    // 4 with the vendored fixtures alone (as in CI), more with the shared corpus.
    assert!(
        with_files >= 4,
        "only {with_files} session files record their files"
    );
}
