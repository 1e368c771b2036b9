//! Text the CLI and the MCP server both show.

use thehook_core::memory::rank::fusion::Hit;

use crate::output::Style;

/// Hits as `recall` prints them: citation, type, date and id, then the text.
/// `paint` styles the parts (the terminal's colors, or none).
pub(crate) fn hits_text(hits: &[Hit], paint: &dyn Fn(Style, &str) -> String) -> String {
    let mut lines = Vec::new();
    for hit in hits {
        let item = &hit.item;
        let date = item.date.get(..10).unwrap_or(&item.date);
        lines.push(format!(
            "{}  {}  {}  {}",
            paint(Style::Path, &hit.citation),
            paint(Style::Kind, item.kind.as_str()),
            paint(Style::Dim, date),
            paint(Style::Dim, &item.id),
        ));
        lines.push(format!("  {}", one_line(&item.text, 400)));
        if let Some(w) = &item.withheld {
            let learned = w
                .learned_note()
                .map(|n| format!("; {n}"))
                .unwrap_or_default();
            lines.push(paint(
                Style::Warn,
                &format!(
                    "  withheld from agents: {}: {}{learned}",
                    w.rule,
                    w.rule.what()
                ),
            ));
        } else if item.awaiting_check {
            lines.push(paint(
                Style::Warn,
                "  not given to agents until the learned check reads it (the next sync with the model)",
            ));
        }
        // The source stays in --json and on the page: an agent reading
        // this is not pointed at the page that said it.
        if item.outside.is_some() {
            lines.push(paint(
                Style::Dim,
                "  captured from what a source outside the project said",
            ));
        }
        if let Some(why) = &hit.stale {
            lines.push(paint(Style::Warn, &format!("  stale: {why}")));
        }
        if !hit.duplicates.is_empty() {
            lines.push(paint(
                Style::Dim,
                &format!("  also at {}", hit.duplicates.join(", ")),
            ));
        }
    }
    lines.join("\n")
}

/// Whitespace collapsed and cut at `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}
