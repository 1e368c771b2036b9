use super::*;

fn project() -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::at(dir.path());
    std::fs::create_dir_all(project.knowledge_dir()).unwrap();
    (dir, project)
}

#[test]
fn a_committed_apply_is_finished_and_an_uncommitted_one_discarded() {
    let (_dir, project) = project();
    let target = project.knowledge_dir().join("conventions.md");
    std::fs::write(&target, "old\n").unwrap();
    let staged = [(
        ".thehook/knowledge/conventions.md".to_string(),
        "new\n".to_string(),
    )];

    // Killed before the manifest: nothing changes, the staging is cleared.
    let dir = staging(&project);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("0.md"), "new\n").unwrap();
    finish_interrupted(&project).unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
    assert!(!dir.exists());

    // Killed after the manifest, before the moves: the next run moves.
    apply(&project, &staged).unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
    assert!(!dir.exists());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("0.md"), "newer\n").unwrap();
    let manifest = Manifest {
        moves: vec![("0.md".into(), staged[0].0.clone())],
    };
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    finish_interrupted(&project).unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "newer\n");
}

#[test]
fn answers_must_have_three_parts_of_list_items() {
    let good = "=== conventions.md ===\n- `[convention]` a\n=== architecture.md ===\n- `[ADR]` b, 2026-01-02\n  - **Context**: c\n  - **Rationale**: e\n=== history.md ===\n- 2026-01-02: d\n";
    let parts = parse_answer(good).unwrap();
    assert_eq!(
        parts[1],
        ["- `[ADR]` b, 2026-01-02 — **Context**: c; **Rationale**: e"]
    );
    for (bad, why) in [
        (
            "=== conventions.md ===\n- a\n=== history.md ===\n",
            "`=== architecture.md ===` is missing",
        ),
        ("=== conventions.md ===\nprose\n", "not a list item"),
        ("=== notes.md ===\n", "unknown part"),
        (
            "=== conventions.md ===\n  - nested first\n",
            "nested line before any item",
        ),
    ] {
        let err = parse_answer(bad).unwrap_err().to_string();
        assert!(err.contains(why), "{bad:?}: {err}");
    }
}

#[test]
fn reworded_items_are_kept_and_lost_ones_are_named() {
    let before = vec![
        "`[convention]` Commit messages use the imperative mood".to_string(),
        "`[convention]` Tests are colocated in __tests__/".to_string(),
    ];
    let new = vec![
        vec!["- `[convention]` Commit messages are in the imperative mood (merged)".to_string()],
        vec![],
        vec![],
    ];
    let dropped = dropped_items(&before, &new);
    assert_eq!(
        dropped,
        ["`[convention]` Tests are colocated in __tests__/"]
    );
}
