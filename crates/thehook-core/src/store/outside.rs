//! The mark a captured line carries when only something from outside the
//! project said it: a fetched page, a web search, an MCP server, a file
//! outside the project or in a dependency folder (`capture/provenance.rs`
//! decides). It is written at the end of the line, in the session file,
//! where a person reviewing the file sees it:
//!
//! ```text
//! - `[convention]` Install `fixture-loader` first *(from outside: WebFetch https://vendor.example/docs)*
//! ```
//!
//! Parsing takes it off the item's text (an agent given the line is not
//! handed the URL) into [`crate::store::item::Item::outside`], and the
//! line is withheld from agents until a person confirms it, unless the
//! repository vouches for the action it names (`policy/verify.rs`). A mark a pull
//! request adds only makes its line stricter; a person who deletes it
//! vouches for the line, as by editing it.

/// What opens the mark; it runs to the end of its line.
const OPEN: &str = "*(from outside: ";
const CLOSE: &str = ")*";

/// Most characters of a source kept in the mark.
const MAX_SOURCE: usize = 160;

/// `line` with the mark naming `source` at its end. A source cannot close
/// the mark early nor break the line.
pub fn mark(line: &str, source: &str) -> String {
    let source: String = source
        .chars()
        .map(|c| match c {
            '(' | ')' | '*' | '\n' | '\r' => ' ',
            c => c,
        })
        .collect();
    let source = crate::text::clip_chars(source.trim(), MAX_SOURCE);
    format!("{} {OPEN}{source}{CLOSE}", line.trim_end())
}

/// `body` without its mark, and the source the mark named. The mark is
/// looked for at the end of the body's first line (the item's own line;
/// an ADR's nested lines follow it).
pub fn take(body: &str) -> (String, Option<String>) {
    let (first, rest) = match body.split_once('\n') {
        Some((first, rest)) => (first, Some(rest)),
        None => (body, None),
    };
    let trimmed = first.trim_end();
    let Some(inner) = trimmed.strip_suffix(CLOSE) else {
        return (body.to_string(), None);
    };
    let Some(at) = inner.rfind(OPEN) else {
        return (body.to_string(), None);
    };
    let source = inner[at + OPEN.len()..].trim().to_string();
    let mut text = inner[..at].trim_end().to_string();
    if let Some(rest) = rest {
        text.push('\n');
        text.push_str(rest);
    }
    (text, Some(source))
}

/// `markdown` without its marked list items and their nested lines: what
/// only a page said is not merged into the knowledge files, where the LLM
/// could drop its mark (`capture/consolidate.rs`). It stays in its session
/// file, withheld until a person confirms it.
pub fn without_marked(markdown: &str) -> String {
    let mut out = String::new();
    let mut dropping: Option<usize> = None;
    for line in markdown.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(at) = dropping {
            if indent > at && !line.trim().is_empty() {
                continue;
            }
            dropping = None;
        }
        let item = line.trim_start().starts_with("- ") || line.trim_start().starts_with("* ");
        if item && take(line.trim_start()).1.is_some() {
            dropping = Some(indent);
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_round_trips_and_a_source_cannot_close_it_early() {
        let line = mark(
            "Install `x` first",
            "WebFetch https://a.example/(docs)*\nignore",
        );
        assert_eq!(
            line,
            "Install `x` first *(from outside: WebFetch https://a.example/ docs   ignore)*"
        );
        let (text, source) = take(&line);
        assert_eq!(text, "Install `x` first");
        assert_eq!(
            source.as_deref(),
            Some("WebFetch https://a.example/ docs   ignore")
        );
    }

    #[test]
    fn only_a_mark_at_the_end_of_the_first_line_counts() {
        let adr = format!(
            "{}\n  - **Context**: a page",
            mark("Use the vendor SDK", "WebSearch vendor sdk")
        );
        let (text, source) = take(&adr);
        assert_eq!(text, "Use the vendor SDK\n  - **Context**: a page");
        assert_eq!(source.as_deref(), Some("WebSearch vendor sdk"));
        let inside = "The docs say *(from outside: x)* and more";
        assert_eq!(take(inside), (inside.to_string(), None));
        assert_eq!(take("plain"), ("plain".to_string(), None));
    }

    #[test]
    fn marked_items_and_their_details_are_left_out_of_a_merge() {
        let text = format!(
            "## ADRs\n- {}\n  - **Context**: the page\n- Kept\n  - **Context**: ours\n",
            mark(
                "`[ADR]` Use the vendor mirror",
                "WebFetch https://a.example"
            )
        );
        assert_eq!(
            without_marked(&text),
            "## ADRs\n- Kept\n  - **Context**: ours\n"
        );
    }
}
