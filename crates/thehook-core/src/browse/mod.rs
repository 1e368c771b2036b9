//! The session browser: `thehook sessions` lists this project's past
//! sessions from every agent's transcript store, and `thehook read` shows one
//! in a compact scanning form (one line per numbered piece) or, for the
//! lines asked for, in full. Made for agents digging through their own
//! history: position-based, no decoration, few tokens. Secrets are redacted
//! in every form (docs/capture.md, `thehook read`).

mod cache;
mod compact;
mod full;
mod lines;
mod list;
mod listed;
mod select;

#[cfg(test)]
mod tests;

use std::fmt::Write;

use regex::Regex;

pub use lines::{lines, Line, Part};
pub use list::{find, list, open, sources, subagent_sources, ListOptions, Listed, Listing, Source};
pub use select::Selection;

use crate::transcript::Transcript;

/// What `read` shows.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Only these lines, in full.
    pub lines: Option<Selection>,
    /// Every line in full.
    pub full: bool,
    /// Only lines whose full text matches.
    pub grep: Option<Regex>,
}

impl ReadOptions {
    /// The options as text fields give them: `lines` like `5`, `5-10` or
    /// `1,5,10-15`; `grep` a regular expression.
    pub fn parse(
        lines: Option<&str>,
        full: bool,
        grep: Option<&str>,
    ) -> crate::error::Result<ReadOptions> {
        let lines = lines.map(Selection::parse).transpose()?;
        let grep = grep
            .map(|g| {
                Regex::new(g).map_err(|e| crate::error::Error::Usage {
                    problem: format!("grep {g:?} is not a regular expression: {e}"),
                    source: crate::error::cause(e),
                    fix: "escape special characters, or use a simpler pattern".into(),
                })
            })
            .transpose()?;
        Ok(ReadOptions { lines, full, grep })
    }
}

/// The result of `read`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub text: String,
    /// Lines shown.
    pub shown: usize,
    /// Lines the transcript has.
    pub total: usize,
}

/// Renders a (redacted) transcript: a header line, then the chosen lines,
/// compact unless lines were picked or `full` asked.
pub fn read(t: &Transcript, o: &ReadOptions) -> Reading {
    let all = lines(t);
    let full = o.full || o.lines.is_some();
    let mut clock = compact::Clock::default();
    let mut text = header(t, all.len());
    let mut shown = 0;
    for line in &all {
        if o.lines.as_ref().is_some_and(|s| !s.contains(line.number)) {
            continue;
        }
        let whole = full::line(line);
        if o.grep.as_ref().is_some_and(|re| !re.is_match(&whole)) {
            continue;
        }
        shown += 1;
        text.push('\n');
        if full {
            text.push_str(&whole);
        } else {
            text.push_str(&compact::line(line, &mut clock));
        }
    }
    text.push('\n');
    Reading {
        text,
        shown,
        total: all.len(),
    }
}

/// `session <id>|<agent>|<start>|<cwd>|<branch>|<N> lines`.
fn header(t: &Transcript, total: usize) -> String {
    let mut fields = vec![format!(
        "session {}",
        t.agent_id
            .as_ref()
            .map(|a| format!("agent-{a}"))
            .or_else(|| t.session_id.clone())
            .unwrap_or_default()
    )];
    fields.extend(t.format.map(str::to_string));
    fields.extend(t.started.clone());
    fields.extend(t.cwd.clone());
    fields.extend(t.git_branch.as_ref().map(|b| format!("branch {b}")));
    let mut out = fields.join("|");
    let _ = write!(out, "|{total} lines");
    out
}

/// A line's kind; `sub.` marks a subagent's turn written inline.
fn kind_label(l: &Line) -> String {
    match l.sidechain {
        true => format!("sub.{}", l.part.kind()),
        false => l.part.kind().to_string(),
    }
}

/// The listing as `thehook sessions` prints it:
/// `<id prefix> <start> <lines> <summary>`, subagents indented under their
/// session. Ids are cut to the shortest prefix (8 characters or more) that
/// still tells every listed session apart.
pub fn render_listing(listing: &Listing) -> String {
    let ids: Vec<&str> = listing.sessions.iter().map(|s| s.id.as_str()).collect();
    let width = unique_prefix_len(&ids);
    let mut out = String::new();
    let mut write = |indent: &str, s: &Listed, id: &str| {
        let started = s
            .started
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .map_or_else(
                || "-".to_string(),
                |t| t.strftime("%Y-%m-%dT%H:%M").to_string(),
            );
        let _ = writeln!(out, "{indent}{id} {started} {} {}", s.lines, s.summary);
    };
    for s in &listing.sessions {
        let id: String = s.id.chars().take(width).collect();
        write("", s, &id);
        for sub in &s.subagents {
            write("  ", sub, &sub.id);
        }
    }
    if listing.more > 0 {
        let _ = writeln!(out, "… {} older (--limit 0 lists all)", listing.more);
    }
    out
}

fn unique_prefix_len(ids: &[&str]) -> usize {
    const MIN: usize = 8;
    let longest = ids.iter().map(|i| i.chars().count()).max().unwrap_or(MIN);
    (MIN..longest)
        .find(|&n| {
            let mut seen = std::collections::HashSet::new();
            ids.iter()
                .all(|i| seen.insert(i.chars().take(n).collect::<String>()))
        })
        .unwrap_or(longest)
}
