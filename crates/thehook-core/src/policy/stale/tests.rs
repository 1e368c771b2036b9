use super::*;
use crate::store::item::ItemKind;
use crate::test_git::git;

fn item(id: &str, text: &str) -> Item {
    Item {
        id: id.into(),
        kind: ItemKind::Convention,
        text: text.into(),
        path: ".thehook/knowledge/conventions.md".into(),
        line_start: 3,
        line_end: 3,
        date: "2026-01-02T00:00:00Z".into(),
        session_id: None,
        withheld: None,
        awaiting_check: false,
        outside: None,
    }
}

#[test]
fn paths_are_read_from_prose_and_code_spans() {
    assert_eq!(
        cited_paths(
            "Tests live in `src/auth/__tests__/`, see src/auth/jwt.ts:12 and (docs/release.md). \
             Not https://x.org/a/b, ~/.claude/settings.json, /etc/hosts, @scope/pkg, src/*.rs, \
             ../up/file, input/output is fine"
        ),
        [
            "src/auth/__tests__/",
            "src/auth/jwt.ts",
            "docs/release.md",
            "input/output"
        ]
    );
}

#[test]
fn symbols_are_calls_paths_or_code_shaped_names_in_backticks() {
    assert_eq!(
        cited_symbols(
            "Call `parse_config()` then `Index::sync`, `client.retry()`, `fetchUser`; \
             not `jwt.ts`, `vitest`, `DATABASE_URL`, `npm run build`, `src/a.rs`, or parse_plain"
        ),
        ["parse_config", "sync", "retry", "fetchUser"]
    );
}

#[test]
fn a_superseded_decision_says_by_what() {
    assert_eq!(
        superseded("~~Redis sessions~~ superseded on 2026-02-20 by JWT rotation"),
        Some("superseded on 2026-02-20 by JWT rotation".into())
    );
    assert_eq!(superseded("JWT supersedes server sessions"), None);
}

#[test]
fn renamed_files_and_removed_symbols_make_items_stale_until_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = Project::at(root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(project.knowledge_dir()).unwrap();
    std::fs::write(root.join("src/auth.rs"), "fn refresh_token() {}\n").unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-qm", "auth"]);
    let items = [
        item("a1", "Tokens refresh in src/auth.rs"),
        item("b2", "Call `refresh_token()` before a retry"),
        item("c3", "Logs go to `logs/` (a folder nobody has made)"),
        item(
            "d4",
            "~~Sessions in Redis~~ superseded on 2026-02-20 by JWT",
        ),
    ];
    let reasons =
        |s: &Staleness| -> Vec<Option<String>> { items.iter().map(|i| s.reason(i)).collect() };
    let now = Staleness::check_symbols(&project, &items).unwrap();
    assert_eq!(
        reasons(&now),
        [
            None,
            None,
            None,
            Some("superseded on 2026-02-20 by JWT".into())
        ]
    );

    // The file is renamed and the function with it.
    git(root, &["mv", "src/auth.rs", "src/session.rs"]);
    std::fs::write(root.join("src/session.rs"), "fn renew() {}\n").unwrap();
    let later = Staleness::check_symbols(&project, &items).unwrap();
    let why = reasons(&later);
    assert_eq!(
        why[0].as_deref(),
        Some("cites src/auth.rs, which is not in the checkout")
    );
    assert_eq!(
        why[1].as_deref(),
        Some("cites `refresh_token`, which no file in the checkout mentions")
    );
    assert_eq!(
        why[2], None,
        "logs/ is not judged: no such folder at the root"
    );
    // What was found missing is kept for the fast paths.
    assert_eq!(Staleness::load(&project).reason(&items[1]), why[1]);

    CONFIRMED.add(&project, "a1").unwrap();
    assert_eq!(Staleness::load(&project).reason(&items[0]), None);
}
