//! Text a reviewer cannot see, removed: a line of memory must mean to an
//! agent exactly what it shows a person in a diff or an editor.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use unicode_general_category::{get_general_category, GeneralCategory};

const ZERO_WIDTH_JOINER: char = '\u{200D}';
const ZERO_WIDTH_NON_JOINER: char = '\u{200C}';

/// `text` without hidden text:
/// - Unicode tag characters (U+E0000..U+E007F: ASCII no font draws), bidi
///   controls (which reorder what is shown), zero-width spaces, soft
///   hyphens and every other invisible format character (category Cf);
/// - terminal escape sequences whole, and every other control character
///   but tab and line breaks: a terminal runs a sequence (colours, an
///   OSC 8 link whose target it hides, a clipboard write) where a diff
///   shows `^[` or nothing, so what is left is what the terminal shows;
/// - variation selectors but the emoji ones (U+FE0E, U+FE0F), which can
///   carry bytes after any character;
/// - the zero-width joiners where they sit inside a Latin word (emoji and
///   scripts that need them, such as Persian or Devanagari, keep theirs);
/// - HTML comments (`<!-- ... -->`, an unclosed one to the end), which
///   rendered markdown hides, but not inside a `code span`, which shows them.
pub fn strip_hidden(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| hidden_char(c).is_some()) && !text.contains("<!--") {
        return Cow::Borrowed(text);
    }
    let without_comments = strip_comments(text);
    let without_escapes = strip_terminal_escapes(&without_comments);
    let chars: Vec<char> = without_escapes.chars().collect();
    let mut out = String::with_capacity(without_escapes.len());
    for (i, &c) in chars.iter().enumerate() {
        let keep = match hidden_char(c) {
            None => true,
            Some(Hidden::Always) => false,
            Some(Hidden::InsideWords) => {
                let latin = |c: Option<&char>| c.is_some_and(char::is_ascii_alphanumeric);
                !(latin(i.checked_sub(1).and_then(|p| chars.get(p))) || latin(chars.get(i + 1)))
            }
        };
        if keep {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

enum Hidden {
    Always,
    /// Joiners: hidden next to a Latin letter or digit.
    InsideWords,
}

fn hidden_char(c: char) -> Option<Hidden> {
    if c.is_control() {
        return (!matches!(c, '\t' | '\n' | '\r')).then_some(Hidden::Always);
    }
    if c.is_ascii() {
        return None;
    }
    if c == ZERO_WIDTH_JOINER || c == ZERO_WIDTH_NON_JOINER {
        return Some(Hidden::InsideWords);
    }
    let variation_selector = matches!(c, '\u{FE00}'..='\u{FE0D}' | '\u{E0100}'..='\u{E01EF}');
    (variation_selector || get_general_category(c) == GeneralCategory::Format)
        .then_some(Hidden::Always)
}

/// `text` without its terminal escape sequences (ECMA-48): a control
/// sequence (`ESC [` or CSI, parameters, one final byte), an operating
/// system command (`ESC ]` or OSC, up to BEL or ST, unterminated to the
/// end as a terminal would swallow it; an OSC 8 link keeps only its
/// visible text), or `ESC` and one byte. Three patterns where a crate
/// (strip-ansi-escapes) would bring a terminal parser; the control
/// characters left are dropped with the other hidden characters.
fn strip_terminal_escapes(text: &str) -> Cow<'_, str> {
    static ESCAPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?:\x1b\[|\x{9b})[0-?]*[ -/]*[@-~]",
            r"|(?:\x1b\]|\x{9d})[^\x07\x1b\x{9c}]*(?:\x07|\x1b\\|\x{9c})?",
            r"|\x1b[@-_]",
        ))
        .expect("the escape pattern compiles")
    });
    ESCAPE.replace_all(text, "")
}

/// `text` without HTML comments outside code spans.
fn strip_comments(text: &str) -> Cow<'_, str> {
    if !text.contains("<!--") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let code_at = rest.find('`');
        let comment_at = rest.find("<!--");
        match (code_at, comment_at) {
            (Some(c), Some(m)) if c < m => {
                // A code span: copied whole, up to its closing run of as
                // many backticks (none: the backticks are literal).
                let run = rest[c..].len() - rest[c..].trim_start_matches('`').len();
                let fence = &rest[c..c + run];
                let end = rest[c + run..]
                    .find(fence)
                    .map_or(c + run, |e| c + run + e + run);
                out.push_str(&rest[..end]);
                rest = &rest[end..];
            }
            (_, Some(m)) => {
                out.push_str(&rest[..m]);
                rest = match rest[m + 4..].find("-->") {
                    Some(e) => &rest[m + 4 + e + 3..],
                    None => "",
                };
            }
            (_, None) => {
                out.push_str(rest);
                rest = "";
            }
        }
    }
    Cow::Owned(out)
}
