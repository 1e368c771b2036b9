use super::*;

const SESSION: &str = "---
session_id: 5e41ef2f-689e-4d7d-b917-06ebc40107bc
agent: claude-code
date: 2026-02-23T14:30:00Z
branch: feat/auth
title: JWT auth with refresh rotation
consolidated: false
---
## Session Summary
- **What was done**: Implemented JWT auth system
- **Problems encountered**: Conflict between Express middleware and cookies
- **Decisions made**: Chose jose over jsonwebtoken because it runs on the edge

## Conventions Detected
- `[convention]` Tests colocated in `__tests__/` next to source files

## Architecture Decisions
- `[ADR]` JWT with refresh token rotation over server sessions
  - **Context**: Stateless app, multi-instance deployment
  - **Alternatives considered**: Redis sessions, httpOnly cookies
  - **Rationale**: Operational simplicity, no shared state

## Gotchas
- `[gotcha]` `vitest --changed` misses files imported through path aliases
";

const MTIME: &str = "2026-03-01T00:00:00Z";

/// The fields a reader checks, one line per item.
fn summary(parsed: &ParsedFile) -> Vec<String> {
    parsed
        .items
        .iter()
        .map(|i| {
            format!(
                "{}-{} {} {} {:?}",
                i.line_start,
                i.line_end,
                i.kind,
                &i.date[..10],
                i.text
            )
        })
        .collect()
}

#[test]
fn session_file_items_match_design_section_2() {
    let parsed = parse_markdown(".thehook/sessions/2026-02-23-1430-auth.md", SESSION, MTIME);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(
        parsed.front_matter.title.as_deref(),
        Some("JWT auth with refresh rotation")
    );
    assert!(parsed
        .items
        .iter()
        .all(|i| i.session_id.as_deref() == Some("5e41ef2f-689e-4d7d-b917-06ebc40107bc")));
    assert!(parsed
        .items
        .iter()
        .all(|i| i.date == "2026-02-23T14:30:00Z"));
    insta::assert_yaml_snapshot!(summary(&parsed));
}

#[test]
fn knowledge_file_shapes() {
    let text = "# Conventions

Paragraphs under a heading are items too,
even when they wrap.

- `[gotcha]` A tag overrides the file's type
1. Ordered lists count
2) with either delimiter
* stars
+ and plus signs

```sh
pnpm test --filter web
```

## Notes
- 2026-01-05: an item with its own date
- [a link](https://example.com) is not a tag

> a quote is one item
";
    let parsed = parse_markdown(".thehook/knowledge/conventions.md", text, MTIME);
    insta::assert_yaml_snapshot!(summary(&parsed));
}

#[test]
fn ids_are_stable_under_rewrapping_and_differ_by_file() {
    let a = parse_markdown("k/notes.md", "- one fact\n  that wraps\n", MTIME);
    let b = parse_markdown(
        "k/notes.md",
        "# Notes\n\n- one   fact that\n      wraps\n",
        MTIME,
    );
    let c = parse_markdown("k/other.md", "- one fact that wraps\n", MTIME);
    assert_eq!(a.items[0].id, b.items[0].id);
    assert_ne!(a.items[0].id, c.items[0].id);
    assert_eq!(a.items[0].id.len(), 12);
}

#[test]
fn identical_items_in_one_file_get_distinct_ids() {
    let parsed = parse_markdown("k/notes.md", "- same\n- other\n- same\n", MTIME);
    let ids: std::collections::HashSet<_> = parsed.items.iter().map(|i| &i.id).collect();
    assert_eq!(ids.len(), 3);
}

#[test]
fn file_time_is_the_fallback_date() {
    let parsed = parse_markdown("k/notes.md", "- undated\n", MTIME);
    assert_eq!(parsed.items[0].date, MTIME);
}

#[test]
fn a_dated_heading_dates_the_items_under_it() {
    let text = "---\ndate: 2023-01-01\n---\n- before any heading\n\
        ## 2023-05-08\n- first session\n### Details\n- still the 8th\n\
        - 2024-02-02 its own date wins\n\
        ## Session 2 (7:55 pm on 9 June, 2023)\n- second session\n\
        - [D1:3] (1:56 pm on 9 May, 2023) a day written after a label\n\
        - (2023-05-10) or first, in parentheses\n\
        - [link](https://x.dev) (11 May, 2023) not after a link\n\
        ## Gotchas\n- back to the front matter\n";
    let parsed = parse_markdown("k/log.md", text, MTIME);
    let dates: Vec<(&str, &str)> = parsed
        .items
        .iter()
        .map(|i| (&i.date[..10], i.text.as_str()))
        .collect();
    assert_eq!(
        dates,
        [
            ("2023-01-01", "before any heading"),
            ("2023-05-08", "first session"),
            ("2023-05-08", "still the 8th"),
            ("2024-02-02", "its own date wins"),
            ("2023-06-09", "second session"),
            (
                "2023-05-09",
                "[D1:3] (1:56 pm on 9 May, 2023) a day written after a label"
            ),
            ("2023-05-10", "(2023-05-10) or first, in parentheses"),
            (
                "2023-06-09",
                "[link](https://x.dev) (11 May, 2023) not after a link"
            ),
            ("2023-01-01", "back to the front matter"),
        ]
    );
}

#[test]
fn an_item_that_asks_is_paired_with_the_reply_under_the_same_heading() {
    let text = "## Day 1\n\
                - Where do the tests live?\n\
                - Next to the source.\n\
                - See /search?q=x for more\n\
                - unrelated\n\
                - Why JWT? (asked twice)\n\
                ## Day 2\n\
                - Because sessions did not scale.\n";
    let parsed = parse_markdown("k/notes.md", text, "2024-01-01T00:00:00Z");
    assert_eq!(parsed.items.len(), 6);
    // Not the URL's `?`, and not across a heading.
    assert_eq!(parsed.replies, vec![(0, 1)]);
}

#[test]
fn bad_front_matter_warns_and_keeps_the_body() {
    let parsed = parse_markdown(
        "s/x.md",
        "---\ntitle: [unclosed\n---\n## Gotchas\n- still indexed\n",
        MTIME,
    );
    assert_eq!(parsed.items.len(), 1);
    assert_eq!(parsed.items[0].kind, ItemKind::Gotcha);
    assert_eq!(parsed.warnings.len(), 1);
    assert!(
        parsed.warnings[0].starts_with("s/x.md:1: front matter is not valid YAML"),
        "{}",
        parsed.warnings[0]
    );
}

#[test]
fn nested_list_lines_belong_to_their_item() {
    let parsed = parse_markdown(
        "k/a.md",
        "- parent\n  - child one\n  - child two\n- next\n",
        MTIME,
    );
    assert_eq!(parsed.items.len(), 2);
    assert_eq!(
        (parsed.items[0].line_start, parsed.items[0].line_end),
        (1, 3)
    );
    assert_eq!(parsed.items[0].text, "parent\n- child one\n- child two");
}

#[test]
fn empty_and_heading_only_files_have_no_items() {
    assert!(parse_markdown("k/a.md", "", MTIME).items.is_empty());
    assert!(parse_markdown("k/a.md", "# Title\n\n## Section\n", MTIME)
        .items
        .is_empty());
    assert!(parse_markdown("k/a.md", "-\n- \n", MTIME).items.is_empty());
}

#[test]
fn crlf_files_parse_like_lf_files() {
    let lf = parse_markdown("k/a.md", "# Gotchas\n- one\n- two\n", MTIME);
    let crlf = parse_markdown("k/a.md", "# Gotchas\r\n- one\r\n- two\r\n", MTIME);
    assert_eq!(summary(&lf), summary(&crlf));
    assert_eq!(lf.items[0].id, crlf.items[0].id);
}

#[test]
fn unicode_whitespace_in_continuation_lines_is_kept_whole() {
    for text in [
        "- foo\n\u{3000}\u{3000}bar\n",
        "1.\u{a0}\u{a0}foo\n   \u{a0}\u{a0}bar\n",
        "- x\n\t\u{2003}y\n",
    ] {
        let parsed = parse_markdown("k/a.md", text, MTIME);
        assert_eq!(parsed.items.len(), 1, "{text:?}");
        assert!(parsed.items[0].line_end == 2, "{text:?}");
    }
}
