use super::*;

#[test]
fn a_long_condensed_transcript_keeps_its_start_and_end_at_line_boundaries() {
    let lines: Vec<String> = (0..4000)
        .map(|i| format!("[{i}] user: line {i} é"))
        .collect();
    let text = lines.join("\n") + "\n";
    assert!(text.len() > MAX_INPUT);
    let cut = fit(&text);
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
    assert_eq!(fit("short\n"), "short\n");
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
    assert_eq!(
        worker.locate(&job("abc-123")),
        Some(dir.join("abc-123.jsonl"))
    );
    assert_eq!(worker.locate(&job("../../../../etc/passwd")), None);
}
