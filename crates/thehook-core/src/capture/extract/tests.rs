use super::*;

const GOOD: &str = "Title: JWT auth with refresh rotation

## Session Summary
- **What was done**: Implemented JWT auth
- **Problems encountered**: none
- **Decisions made**: Chose jose over jsonwebtoken

## Conventions Detected
- `[convention]` Tests are colocated in `__tests__/`

## Architecture Decisions
- `[ADR]` JWT with refresh token rotation over server sessions
  - **Context**: Stateless app
  - **Rationale**: No shared state

## Gotchas
";

fn meta(extracted: Option<&str>) -> SessionMeta {
    SessionMeta {
        session_id: "5e41ef2f-689e-4d7d-b917-06ebc40107bc".into(),
        agent: "claude-code".into(),
        date: "2026-02-23T14:30:00Z".into(),
        branch: Some("feat/auth".into()),
        title: Some("JWT auth: refresh rotation".into()),
        extracted: extracted.map(str::to_string),
        ended: Some("2026-02-23T15:02:00Z".into()),
        files: vec!["src/auth/jwt.ts".into(), "src/auth/jwt.test.ts".into()],
    }
}

#[test]
fn a_good_answer_renders_the_session_file_format() {
    let d = parse_answer(GOOD).unwrap();
    assert_eq!(d.title.as_deref(), Some("JWT auth with refresh rotation"));
    assert_eq!(d.decisions[0].details.len(), 2);
    insta::assert_snapshot!(render(&meta(None), &d));
}

#[test]
fn the_rendered_file_parses_into_typed_items() {
    let text = render(&meta(None), &parse_answer(GOOD).unwrap());
    let parsed = crate::store::parse_markdown(".thehook/sessions/x.md", &text, "2026-01-01");
    let kinds: Vec<&str> = parsed.items.iter().map(|i| i.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["summary", "summary", "summary", "convention", "adr"]
    );
    assert_eq!(
        parsed.front_matter.title.as_deref(),
        Some("JWT auth: refresh rotation")
    );
    assert_eq!(parsed.front_matter.consolidated, None);
}

#[test]
fn fences_chatter_and_loose_tags_are_tolerated() {
    let answer = format!(
        "Here is the memory:\n```markdown\n{}\n```",
        GOOD.replace("`[convention]`", "[Convention]")
    );
    let d = parse_answer(&answer).unwrap();
    assert_eq!(d.conventions, ["Tests are colocated in `__tests__/`"]);
}

#[test]
fn unusable_answers_are_refused_with_the_reason() {
    let cases = [
        ("", "the answer was empty"),
        ("I could not access the transcript.", "no `## Session Summary` section"),
        (
            "## Session Summary\n- did it\n## Gotchas\n- `[gotcha]` x",
            "no `## Conventions Detected` section",
        ),
        (
            "## Session Summary\n- did it\n## Conventions Detected\nsome prose\n## Architecture Decisions\n## Gotchas",
            "is not a list item",
        ),
        (
            "## Session Summary\n- did it\n## Conventions Detected\n- no tag here\n## Architecture Decisions\n## Gotchas",
            "must start with `[convention]`",
        ),
        (
            "## Gotchas\n## Session Summary\n- x\n## Conventions Detected\n## Architecture Decisions",
            "out of order",
        ),
        (
            "## Session Summary\n## Conventions Detected\n## Architecture Decisions\n## Gotchas",
            "has no items",
        ),
        (
            "## Session Summary\n- x\n## Random\n",
            "unexpected heading",
        ),
    ];
    for (answer, why) in cases {
        let err = parse_answer(answer).unwrap_err().to_string();
        assert!(err.contains(why), "{answer:?}: {err}");
    }
}

#[test]
fn the_heuristic_file_says_what_was_asked_changed_run_and_hit() {
    let facts = Facts {
        asked: vec!["Fix the flaky login test".into(), "now run it".into()],
        files_changed: vec!["src/login.ts".into()],
        commands: vec!["npm test -- login".into()],
        errors: vec!["Error: timeout of 2000ms exceeded".into()],
        last_test: Some((
            "npm test -- login".into(),
            "✗ login redirects | 1 failed, 20 passed".into(),
        )),
        last_said: Some("The login test still fails on CI: the redirect races the cookie.".into()),
    };
    let d = heuristic(&facts);
    insta::assert_snapshot!(render(&meta(Some("heuristic")), &d));
}

#[test]
fn slugs_are_short_lowercase_words() {
    assert_eq!(
        slug("JWT auth: refresh rotation!"),
        "jwt-auth-refresh-rotation"
    );
    assert_eq!(slug("a b c d e f g h"), "a-b-c-d-e-f");
    assert_eq!(slug("…"), "");
}
