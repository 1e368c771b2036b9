//! The session-start block as text: lines under their section headings,
//! cut to the token budget and [`MAX_CHARS`], with a note on what waits.
//! What goes in it is [`crate::inject::session_start`]'s policy.

use crate::inject::tokens::{TokenCounter, TokenCounts};
use crate::model::Availability;
use crate::store::item::Item;
use crate::text::clip_chars;

/// Claude Code cuts `additionalContext` beyond 10,000 characters; stay
/// clearly under, whatever the budget says.
pub(crate) const MAX_CHARS: usize = 9_500;

const HEADER: &str = crate::text::MEMORY_HEADING;
/// The line under the heading: what the notes are, and are not.
const PREAMBLE: &str = crate::text::MEMORY_IS_DATA;

/// One line of the block, under its section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockLine {
    pub section: usize,
    pub text: String,
    /// The `path:line` it cites.
    pub cited: String,
}

/// Sessions that wait to be captured, for the note above the memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct Waiting {
    /// Captures in `.thehook/failed/`.
    pub failed: usize,
    /// Jobs in `.thehook/queue/`.
    pub queued: usize,
    /// What of the daily LLM budget is spent, when it is.
    pub budget_spent: Option<String>,
}

/// The rendered block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block {
    pub text: String,
    pub items: usize,
    pub tokens: usize,
    /// The citations of the lines it holds.
    pub cited: Vec<String>,
}

/// Renders the lines under their section headings (`titles[line.section]`),
/// dropping lines that would break the token budget or the character cap.
pub(crate) fn render(
    titles: &[&str],
    lines: &[BlockLine],
    waiting: &Waiting,
    token_budget: usize,
    availability: &Availability,
    stored_counts: impl FnOnce() -> TokenCounts,
) -> Block {
    let mut notice = Vec::new();
    let Waiting {
        failed,
        queued,
        budget_spent,
    } = waiting;
    match budget_spent {
        Some(spent) if *failed > 0 => notice.push(format!(
            "today's LLM budget is spent ({spent}; llm.daily_budget), so {failed} session(s) were saved from the transcript alone and wait in .thehook/failed/ for tomorrow's"
        )),
        _ if *failed > 0 => notice.push(format!("{failed} session capture(s) failed and wait in .thehook/failed/ (`thehook capture --retry` redoes them)")),
        _ => {}
    }
    if *queued > 0 {
        notice.push(format!(
            "{queued} session(s) wait in .thehook/queue/ to be captured"
        ));
    }
    let notice = (!notice.is_empty()).then(|| format!("Note: {}.", notice.join("; ")));
    let headings: Vec<String> = titles.iter().map(|t| format!("## {t}")).collect();
    let every_text = headings
        .iter()
        .map(String::as_str)
        .chain(lines.iter().map(|l| l.text.as_str()))
        .chain([HEADER, PREAMBLE])
        .chain(notice.as_deref());
    let counter = TokenCounter::new(availability, token_budget, every_text, stored_counts);
    let mut used_chars =
        HEADER.len() + 1 + PREAMBLE.len() + 1 + notice.as_ref().map_or(0, |n| n.len() + 1);
    let mut used_tokens = counter.count(HEADER)
        + counter.count(PREAMBLE)
        + notice.as_ref().map_or(0, |n| counter.count(n));
    let mut kept: Vec<Vec<&BlockLine>> = vec![Vec::new(); headings.len()];
    for line in lines {
        let heading = kept[line.section]
            .is_empty()
            .then(|| &headings[line.section]);
        let chars = line.text.len() + 1 + heading.as_ref().map_or(0, |h| h.len() + 1);
        if used_chars + chars > MAX_CHARS {
            continue;
        }
        let tokens = counter.count(&line.text) + heading.as_ref().map_or(0, |h| counter.count(h));
        if used_tokens + tokens > token_budget {
            continue;
        }
        used_chars += chars;
        used_tokens += tokens;
        kept[line.section].push(line);
    }
    let mut text = format!("{HEADER}\n{PREAMBLE}");
    let mut cited = Vec::new();
    for (section, lines) in kept.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        text.push('\n');
        text.push_str(&headings[section]);
        for line in lines {
            text.push('\n');
            text.push_str(&line.text);
            // A line of the session's own (what it was working on) cites nothing.
            if !line.cited.is_empty() {
                cited.push(line.cited.clone());
            }
        }
    }
    if let Some(n) = notice {
        text.push('\n');
        text.push_str(&n);
    }
    Block {
        text,
        items: cited.len(),
        tokens: used_tokens,
        cited,
    }
}

/// `- text (path:line)`, or `- text, 2026-02-20 (path:line)` when `dated`,
/// the text on one line and cut at `max` characters (the prompt hook's
/// lines too).
pub(crate) fn cited_line(item: &Item, dated: bool, max: usize) -> String {
    let text = clip_chars(&crate::store::item::normalise(&item.text), max);
    match item.date.get(..10).filter(|_| dated) {
        Some(day) => format!("- {text}, {day} ({})", item.citation()),
        None => format!("- {text} ({})", item.citation()),
    }
}
