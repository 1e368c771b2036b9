//! Memory that stays true, on a repository whose files are renamed and
//! deleted after the sessions that mention them: stale items are never
//! injected, are flagged in `recall`, counted in `status`, and `review`
//! confirms, rewrites or forgets them.

use serde_json::Value;

use crate::common::*;

fn stale_count(p: &Project) -> u64 {
    let status: Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    status["stale_items"].as_u64().unwrap()
}

/// The id of the stale item whose text contains `needle`.
fn stale_id(review: &Value, needle: &str) -> String {
    review["stale"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["item"]["text"].as_str().unwrap().contains(needle))
        .unwrap_or_else(|| panic!("no stale item says {needle}: {review}"))["item"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn items_citing_renamed_or_deleted_code_are_stale_until_reviewed() {
    let p = Project::empty().lexical_only();
    p.write(
        "src/auth.rs",
        "pub fn refresh_token() {}\npub fn parse_claims() {}\n",
    );
    p.write("src/cache.rs", "pub struct Cache;\n");
    p.write("docs/release.md", "# Release\n");
    p.write(
        ".thehook/knowledge/conventions.md",
        "# Conventions\n\n\
         - `[convention]` Tokens are refreshed in src/auth.rs before each retry\n\
         - `[convention]` The lookup cache lives in src/cache.rs\n\
         - `[convention]` Release steps are written down in docs/release.md\n\
         - `[convention]` Call `parse_claims()` before trusting a token's audience\n",
    );
    p.write(
        ".thehook/knowledge/architecture.md",
        "# Architecture decisions\n\n\
         - `[ADR]` ~~Sessions kept in Redis~~ superseded on 2026-02-20 by token rotation\n\
         - `[ADR]` Token rotation with refresh tokens, 2026-02-20\n",
    );
    p.write(".git/info/exclude", "home/\nno-cache/\nno-model/\n");
    git(p.root(), &["init", "-q"]);
    git(p.root(), &["add", "-A"]);
    git(p.root(), &["commit", "-qm", "auth, cache and memory"]);

    // Before any change only the superseded decision is stale.
    p.ok(&["review"]);
    assert_eq!(stale_count(&p), 1);
    let context = p.injected();
    for fact in [
        "src/auth.rs",
        "src/cache.rs",
        "docs/release.md",
        "parse_claims",
        "Token rotation",
    ] {
        assert!(context.contains(fact), "{fact} not injected:\n{context}");
    }
    assert!(!context.contains("Redis"), "{context}");

    // auth.rs is renamed and loses parse_claims; cache.rs is deleted.
    git(p.root(), &["mv", "src/auth.rs", "src/session.rs"]);
    p.write("src/session.rs", "pub fn refresh_token() {}\n");
    git(p.root(), &["rm", "-q", "src/cache.rs"]);
    git(
        p.root(),
        &["commit", "-qam", "rename auth to session, drop the cache"],
    );

    // Paths are judged at once; symbols once the checkout is searched (the
    // session-start background half, or review).
    let context = p.injected();
    assert!(
        !context.contains("src/auth.rs") && !context.contains("src/cache.rs"),
        "{context}"
    );
    assert!(context.contains("docs/release.md"), "{context}");
    let review: Value = serde_json::from_str(&p.ok(&["review", "--json"])).unwrap();
    assert_eq!(review["stale"].as_array().unwrap().len(), 4, "{review}");
    assert_eq!(stale_count(&p), 4);
    let context = p.injected();
    assert!(!context.contains("parse_claims"), "{context}");

    // recall still finds a stale item, and says why.
    let hits = p.recall_json("lookup cache", &[]);
    let hit = &hits["hits"][0];
    assert!(
        hit["text"].as_str().unwrap().contains("src/cache.rs"),
        "{hits}"
    );
    assert_eq!(
        hit["stale"],
        "cites src/cache.rs, which is not in the checkout"
    );
    let text = p.ok(&["recall", "lookup cache"]);
    assert!(text.contains("stale: cites src/cache.rs"), "{text}");
    let fresh = p.recall_json("release steps", &[]);
    assert!(fresh["hits"][0].get("stale").is_none(), "{fresh}");

    // A person confirms one, rewrites one and forgets one.
    let auth = stale_id(&review, "src/auth.rs");
    let cache = stale_id(&review, "src/cache.rs");
    let claims = stale_id(&review, "parse_claims");
    p.ok(&["review", "confirm", &auth[..6]]);
    let rewrote = p.ok(&[
        "review",
        "rewrite",
        &cache,
        "The lookup cache was dropped with the session rename",
    ]);
    assert!(rewrote.starts_with("rewrote "), "{rewrote}");
    p.ok(&["review", "forget", &claims]);
    let conventions = p.read(".thehook/knowledge/conventions.md");
    assert!(
        conventions
            .contains("- `[convention]` The lookup cache was dropped with the session rename\n"),
        "{conventions}"
    );
    assert!(!conventions.contains("parse_claims"), "{conventions}");
    assert!(p.read(".thehook/confirmed.txt").contains(&auth));
    assert_eq!(stale_count(&p), 1, "only the superseded decision is left");
    let context = p.injected();
    assert!(
        context.contains("src/auth.rs") && context.contains("was dropped"),
        "{context}"
    );
    let review = p.ok(&["review"]);
    assert!(
        review.contains("superseded on 2026-02-20") && review.contains("1 stale item(s)"),
        "{review}"
    );
}
