//! The review of a range as a person reads it: in a terminal (`to_text`)
//! or in a pull request comment or a job summary (`to_markdown`). Both
//! list the same groups, each entry once in its group, with its citation
//! and author. In markdown, every text that comes from memory (an item, a
//! title, what a rule matched, an author) is a code span: a planted line
//! must not render as markup, a link or an image in the pull request. Both
//! show texts redacted: a report lands in CI logs and comments, where a
//! secret must not be copied again.

use super::{RangeItem, RangeReview};
use crate::process::blame::Blamed;
use crate::text::redact::redact;
use crate::text::safety::Rule;

/// A group of the report: what it holds, and why it is there.
struct Group {
    heading: &'static str,
    note: &'static str,
    entries: Vec<Entry>,
}

/// One line of memory in a group.
struct Entry {
    citation: String,
    kind: String,
    /// Author and short commit, when git knows.
    by: Option<String>,
    text: String,
    /// What a reviewer should know: the rule and what it matched, the
    /// secret's kind, the gone path, the item it repeats.
    why: Vec<String>,
}

/// The report's first group, when the range changes whose word is taken.
const TRUST_HEADING: &str = "Whose word memory is taken on";
const TRUST_NOTE: &str =
    "this range changes who may write action lines agents are given: check it is meant";

/// Characters of an item's text a report shows.
const TEXT_CHARS: usize = 200;

/// Entries of the unflagged rest a markdown report lists: a pull request
/// comment holds 65,536 characters, and a week of sessions adds hundreds.
const REST_IN_MARKDOWN: usize = 50;

fn groups(review: &RangeReview) -> Vec<Group> {
    let entry = |i: &RangeItem, why: Vec<String>| Entry {
        citation: i.citation.clone(),
        kind: i.item.kind.as_str().to_string(),
        by: i.blamed.as_ref().map(by),
        text: redact(&i.item.text).into_owned(),
        why,
    };
    let withheld = review.withheld().map(|i| {
        let w = i.item.withheld.as_ref().expect("withheld");
        let mut why = vec![format!("withheld: {}: {}", w.rule, w.rule.what())];
        // A rule's verdict is what it matched; the learned check's, its score.
        match (w.rule, w.learned_note()) {
            (Rule::Learned, Some(note)) => why.push(note),
            _ => why.push(format!("matched: {}", redact(&w.matched))),
        }
        why.extend(w.reason.as_deref().map(|r| redact(r).into_owned()));
        entry(i, why)
    });
    let unjudged = review.unjudged().map(|i| {
        entry(
            i,
            vec!["not judged: the embedding model did not run".into()],
        )
    });
    let titles = review.titles.iter().map(|t| Entry {
        citation: t.citation.clone(),
        kind: "title".into(),
        by: t.blamed.as_ref().map(by),
        text: redact(&t.title).into_owned(),
        why: vec![format!(
            "withheld: {}: {}",
            t.withheld.rule,
            t.withheld.rule.what()
        )],
    });
    let secrets = review.with_secrets().map(|i| {
        let kinds: Vec<String> = i.secrets.iter().map(|(k, n)| format!("{k} x{n}")).collect();
        entry(i, vec![format!("secret: {}", kinds.join(", "))])
    });
    let hidden = review.with_hidden_text().map(|i| {
        entry(
            i,
            vec!["hidden text: agents are given the line without it".into()],
        )
    });
    let stale = review.stale().map(|i| {
        entry(
            i,
            vec![format!("stale: {}", i.stale.as_deref().unwrap_or_default())],
        )
    });
    let duplicates = review.duplicates().map(|i| {
        let other = i.duplicate_of.as_ref().expect("a duplicate");
        entry(
            i,
            vec![format!(
                "repeats {}: {}",
                other.citation(),
                clip(&redact(&other.text))
            )],
        )
    });
    let rest = review
        .items
        .iter()
        .filter(|i| !i.flagged())
        .map(|i| entry(i, vec![i.change.as_str().to_string()]));
    vec![
        Group {
            heading: "Withheld from agents",
            note: "a safety rule withholds these: no agent is given them until a person releases them",
            entries: withheld.collect(),
        },
        Group {
            heading: "Not judged by the learned check",
            note: "run `thehook doctor`: without the model, these wait and no agent is given them",
            entries: unjudged.collect(),
        },
        Group {
            heading: "Session titles withheld",
            note: "agents are not shown these sessions' titles",
            entries: titles.collect(),
        },
        Group {
            heading: "Secrets",
            note: "the redactor finds a secret in these lines: remove it from the branch and rotate it",
            entries: secrets.collect(),
        },
        Group {
            heading: "Hidden text",
            note: "these lines hold characters or comments a reviewer does not see in a rendered diff",
            entries: hidden.collect(),
        },
        Group {
            heading: "Stale at the range's end",
            note: "they cite a path or a symbol that is gone",
            entries: stale.collect(),
        },
        Group {
            heading: "Near-duplicates of memory already on the base",
            note: "they say nearly what an existing item says",
            entries: duplicates.collect(),
        },
        Group {
            heading: "Other items added or changed",
            note: "nothing to flag",
            entries: rest.collect(),
        },
    ]
}

fn by(blamed: &Blamed) -> String {
    let short = &blamed.commit[..blamed.commit.len().min(8)];
    format!("{} {short}", blamed.author)
}

/// One line of at most [`TEXT_CHARS`] characters.
fn clip(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(TEXT_CHARS) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line,
    }
}

fn summary(review: &RangeReview) -> String {
    let files = review.files.len();
    let (added, changed) = review
        .items
        .iter()
        .fold((0, 0), |(a, c), i| match i.change {
            super::Change::Added => (a + 1, c),
            super::Change::Changed => (a, c + 1),
        });
    format!(
        "{added} item(s) added and {changed} changed in {files} file(s) under .thehook/ since {}",
        &review.base[..review.base.len().min(8)]
    )
}

fn nothing(review: &RangeReview) -> String {
    format!("{}: nothing under .thehook/ changes", review.range)
}

/// The review for a terminal.
pub fn to_text(review: &RangeReview) -> String {
    if !review.touched() {
        return nothing(review);
    }
    let mut out = vec![summary(review)];
    if !review.trust.is_empty() {
        out.push(format!("\n{TRUST_HEADING}: {TRUST_NOTE}"));
        out.extend(review.trust.iter().map(|t| format!("  {t}")));
    }
    for group in groups(review).into_iter().filter(|g| !g.entries.is_empty()) {
        out.push(format!(
            "\n{} ({}): {}",
            group.heading,
            group.entries.len(),
            group.note
        ));
        for e in group.entries {
            let by = e.by.map(|b| format!("  by {b}")).unwrap_or_default();
            out.push(format!("  {}  {}{by}", e.citation, e.kind));
            out.push(format!("    {}", clip(&e.text)));
            out.extend(e.why.iter().map(|w| format!("    {}", clip(w))));
        }
    }
    out.join("\n")
}

/// The review for a pull request comment or a job summary.
pub fn to_markdown(review: &RangeReview) -> String {
    let mut out = vec![
        "### thehook: memory in this range".to_string(),
        String::new(),
    ];
    if !review.touched() {
        out.push(code(&nothing(review)));
        return out.join("\n") + "\n";
    }
    let groups = groups(review);
    let listing = groups.len() - 1;
    let attention: usize = groups[..listing].iter().map(|g| g.entries.len()).sum();
    out.push(format!(
        "{}. {}",
        summary(review),
        match attention {
            0 if review.trust.is_empty() => {
                "Nothing is withheld, secret, hidden, stale or repeated."
            }
            _ => "Each line below is quoted as written; read it before merging.",
        }
    ));
    if !review.trust.is_empty() {
        out.push(format!("\n**{TRUST_HEADING}**: {TRUST_NOTE}\n"));
        out.extend(review.trust.iter().map(|t| format!("- {}", code(t))));
    }
    for (at, group) in groups.into_iter().enumerate() {
        if group.entries.is_empty() {
            continue;
        }
        out.push(String::new());
        let (heading, count, note) = (group.heading, group.entries.len(), group.note);
        // The rest folds away: the groups above are what needs eyes.
        let folded = at == listing;
        match folded {
            true => out.push(format!(
                "<details><summary>{heading} ({count}): {note}</summary>\n"
            )),
            false => out.push(format!("**{heading} ({count})**: {note}\n")),
        }
        let shown = if folded { REST_IN_MARKDOWN } else { count };
        for e in group.entries.into_iter().take(shown) {
            let by =
                e.by.map(|b| format!(", by {}", code(&b)))
                    .unwrap_or_default();
            let why: Vec<String> = e.why.iter().map(|w| code(&clip(w))).collect();
            out.push(format!(
                "- {} ({}{by}): {}  \n  {}",
                code(&e.citation),
                e.kind,
                code(&clip(&e.text)),
                why.join("; ")
            ));
        }
        if count > shown {
            let more = count - shown;
            out.push(format!(
                "- and {more} more: `thehook review --since` lists them all"
            ));
        }
        if folded {
            out.push("\n</details>".into());
        }
    }
    out.push(String::new());
    out.push(format!(
        "Reproduce with `thehook review --since {}`.",
        &review.base[..review.base.len().min(12)]
    ));
    out.join("\n") + "\n"
}

/// `text` as one markdown code span: fenced by more backticks than any
/// run inside it, so nothing in it renders.
fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_span_holds_any_backticks_and_markup() {
        assert_eq!(
            code("<img src=x onerror=alert(1)>"),
            "`<img src=x onerror=alert(1)>`"
        );
        assert_eq!(code("run `make` first"), "``run `make` first``");
        assert_eq!(code("`x`"), "`` `x` ``");
    }
}
