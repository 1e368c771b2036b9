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
mod intent;
pub mod learned;
mod rules;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use hidden::strip_hidden;
pub use rules::Rule;

/// Why an item is withheld from agents: the rule and what matched, and
/// the learned check's score when it read the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Withheld {
    pub rule: Rule,
    /// The text that matched, clipped, for the review listing; for the
    /// learned check, the start of the text.
    pub matched: String,
    /// The learned check's probability that the item is planted, when the
    /// index has the vectors it reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
    /// The known attack the item's vector is closest to, with the cosine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest: Option<NearestAttack>,
    /// Why, beside the rule, when text alone did not decide: for
    /// [`Rule::Unverified`], what the line asks for and where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The group of training attacks an item is closest to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NearestAttack {
    pub label: String,
    pub cosine: f32,
}

impl Withheld {
    /// A rule's verdict on text alone.
    pub fn by_rule(rule: Rule, matched: &str) -> Withheld {
        Withheld {
            rule,
            matched: super::clip_chars(&one_line(matched), MATCHED_CHARS),
            score: None,
            nearest: None,
            reason: None,
        }
    }

    /// An action line no one vouches for ([`Rule::Unverified`]): `matched`
    /// names the action, `reason` says why and where the line came from.
    pub fn unverified(matched: &str, reason: String) -> Withheld {
        Withheld {
            reason: Some(reason),
            ..Withheld::by_rule(Rule::Unverified, matched)
        }
    }

    /// What the learned check made of the item, in a phrase (review,
    /// recall): its score against the threshold and the known attack it is
    /// closest to. `None` when it did not read the item.
    pub fn learned_note(&self) -> Option<String> {
        let score = self.score?;
        let threshold = learned::threshold();
        let mut note = format!("learned check {score:.2} (withheld from {threshold:.2})");
        if let Some(near) = &self.nearest {
            note.push_str(&format!(
                "; nearest known attack: {} (cosine {:.2})",
                near.label, near.cosine
            ));
        }
        Some(note)
    }

    /// The verdict in one line, as the Node API gives it: `rule: what it
    /// catches`, then the learned check's note when it read the item.
    pub fn describe(&self) -> String {
        let mut out = format!("{}: {}", self.rule, self.rule.what());
        for note in self.reason.iter().cloned().chain(self.learned_note()) {
            out.push_str("; ");
            out.push_str(&note);
        }
        out
    }

    /// Adds what the learned check made of the item: its score and the
    /// known attack its vector is closest to.
    fn scored(
        mut self,
        check: &learned::LearnedCheck,
        score: &learned::Score,
        vector: &[f32],
    ) -> Withheld {
        self.score = Some(score.probability);
        self.nearest = check
            .nearest(vector)
            .map(|(label, cosine)| NearestAttack { label, cosine });
        self
    }
}

impl std::fmt::Display for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} (\"{}\")",
            self.rule,
            self.rule.what(),
            self.matched
        )?;
        if let Some(reason) = &self.reason {
            write!(f, "; {reason}")?;
        }
        if let Some(score) = self.score {
            write!(f, "; learned check {score:.2}")?;
        }
        if let Some(near) = &self.nearest {
            write!(
                f,
                ", nearest known attack: {} ({:.2})",
                near.label, near.cosine
            )?;
        }
        Ok(())
    }
}

/// Characters of the matched text kept in a verdict.
const MATCHED_CHARS: usize = 120;

/// The first rule `text` breaks, judged on its visible text.
pub fn judge(text: &str) -> Option<Withheld> {
    let visible = strip_hidden(text);
    rules::first_match(&visible).map(|(rule, matched)| Withheld::by_rule(rule, matched))
}

/// The verdict on an item whose `vector` the learned check reads, beside
/// the rules' `by_rule` (judged when the item was parsed): a rule's verdict
/// keeps its rule and gains the score; an item no rule withholds is
/// withheld when the check's score reaches its threshold. `visible` is the
/// item's text as the index keeps it, hidden characters already stripped.
pub fn judge_with_vector(
    check: &learned::LearnedCheck,
    visible: &str,
    vector: &[f32],
    by_rule: Option<Withheld>,
) -> Option<Withheld> {
    let score = check.score(visible, vector);
    match by_rule {
        Some(verdict) => Some(verdict.scored(check, &score, vector)),
        None if score.withhold => {
            Some(Withheld::by_rule(Rule::Learned, visible).scored(check, &score, vector))
        }
        None => None,
    }
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
