//! Memory is untrusted input: it arrives by git from other people and from
//! what agents read (a web page's text distilled into a session file). This
//! module judges a text before an agent may see it (docs/security.md):
//!
//! 1. [`strip_hidden`] removes what a reviewer cannot see: Unicode tag
//!    characters, bidi controls, zero-width characters inside words, other
//!    invisible format characters, and HTML comments. Everything written
//!    under `.thehook/` and everything injected goes through it.
//! 2. [`judge`] names the first [`Rule`] the visible text breaks: words
//!    addressed to the model, concealment from the user, remote code run,
//!    credentials read, data sent out, chat-role delimiters, an encoded
//!    payload to decode and run. An item that breaks one is *withheld*:
//!    never given to an agent, kept in its file for a person to review.
//!
//! The verdict is computed when an item is indexed and stored with it
//! ([`Withheld`]), so the hooks only filter. Rules catch the shapes of an
//! attack; a plausible but false fact passes them (review, `git blame` and
//! citations are the defense there).

mod hidden;
mod rules;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use hidden::strip_hidden;
pub use rules::Rule;

/// Why an item is withheld from agents: the rule and what matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Withheld {
    pub rule: Rule,
    /// The text that matched, clipped, for the review listing.
    pub matched: String,
}

impl std::fmt::Display for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} (\"{}\")",
            self.rule,
            self.rule.what(),
            self.matched
        )
    }
}

/// Characters of the matched text kept in a verdict.
const MATCHED_CHARS: usize = 120;

/// The first rule `text` breaks, judged on its visible text.
pub fn judge(text: &str) -> Option<Withheld> {
    let visible = strip_hidden(text);
    rules::first_match(&visible).map(|(rule, matched)| Withheld {
        rule,
        matched: super::clip_chars(&one_line(matched), MATCHED_CHARS),
    })
}

/// Whitespace collapsed, so a verdict is one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as an agent may see it, line by line: hidden text stripped, and
/// a line that breaks a rule replaced by a note naming the rule. For text
/// that is not memory items (a transcript read through MCP, a listing of
/// sessions), where there is no item to withhold.
pub fn guard_lines(text: &str) -> String {
    let visible = strip_hidden(text);
    let mut out = String::with_capacity(visible.len());
    for (i, line) in visible.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match rules::first_match(line) {
            Some((rule, _)) => {
                let indent = &line[..line.len() - line.trim_start().len()];
                out.push_str(indent);
                out.push_str(&withheld_line(rule));
            }
            None => out.push_str(line),
        }
    }
    out
}

/// What stands in for a withheld line.
fn withheld_line(rule: Rule) -> String {
    format!("[line withheld by thehook: {rule}]")
}
