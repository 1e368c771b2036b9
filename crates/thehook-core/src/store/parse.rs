//! Markdown file -> memory items (docs/teams.md, "Memory items"): one item per top-level
//! list item (nested lines included) or top-level paragraph/code block.

use std::collections::HashMap;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

use crate::store::item::{item_id, Item, ItemKind};
use crate::text::safety::{self, Withheld};

/// Front matter of a session file; every field optional because files may be
/// written by hand.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default)]
pub struct FrontMatter {
    pub session_id: Option<String>,
    pub agent: Option<String>,
    pub date: Option<serde_yaml::Value>,
    pub branch: Option<String>,
    pub title: Option<String>,
    pub consolidated: Option<bool>,
    pub extracted: Option<String>,
    /// When the session ended (RFC 3339).
    pub ended: Option<serde_yaml::Value>,
    /// Files the session changed, relative to the repository root.
    pub files: Vec<String>,
}

/// The items of one file and anything worth telling the user about it.
#[derive(Debug, Clone, Default)]
pub struct ParsedFile {
    pub items: Vec<Item>,
    /// `(question, reply)` indices into `items`: an item that asks, and the
    /// item right after it under the same heading. Searches let the reply
    /// share the question's match, since a reply rarely repeats the words
    /// it answers.
    pub replies: Vec<(usize, usize)>,
    pub front_matter: FrontMatter,
    /// The line of the title and the rule it breaks, when it breaks one:
    /// the title is then never shown to an agent (see [`title_id`]).
    pub withheld_title: Option<(usize, Withheld)>,
    /// The line of the front matter's title (0 without one): the learned
    /// check judges the title at index time and cites it there.
    pub title_line: usize,
    pub warnings: Vec<String>,
}

impl FrontMatter {
    /// Strips hidden text from the fields an agent is shown (title,
    /// branch, files) and judges them: the rule the title or the branch
    /// breaks, if one does (a branch that breaks one is dropped).
    fn make_visible(&mut self) -> Option<Withheld> {
        let visible = |s: &mut String| *s = safety::strip_hidden(s).into_owned();
        self.title.iter_mut().for_each(visible);
        self.branch.iter_mut().for_each(visible);
        self.files.iter_mut().for_each(visible);
        if self.branch.as_deref().and_then(safety::judge).is_some() {
            self.branch = None;
        }
        self.title.as_deref().and_then(safety::judge)
    }
}

/// The id a session's title is released by: titles are not items, but a
/// person reviews and releases them the same way.
pub fn title_id(path: &str, title: &str) -> String {
    item_id(path, &format!("title: {title}"), 0)
}

/// Parses `text` (the file at project-relative `path`). `file_date` is the
/// fallback date (the file's modification time, RFC 3339).
pub fn parse_markdown(path: &str, text: &str, file_date: &str) -> ParsedFile {
    let mut file = FileParser {
        path,
        text,
        lines: LineIndex::new(text),
        section: None,
        default_kind: kind_of_file(path),
        file_date: file_date.to_string(),
        heading_date: None,
        previous_in_section: None,
        occurrences: HashMap::new(),
        out: ParsedFile::default(),
    };
    let mut stack: Vec<Tag> = Vec::new();
    let mut heading_text: Option<String> = None;
    let opts = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS | Options::ENABLE_TABLES;
    for (event, range) in Parser::new_ext(text, opts).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                let top = stack.is_empty();
                let in_top_list = stack.len() == 1 && matches!(stack[0], Tag::List(_));
                match &tag {
                    Tag::Heading { .. } if top => heading_text = Some(String::new()),
                    Tag::MetadataBlock(_) if top => file.front_matter(range),
                    Tag::List(_) if top => {}
                    Tag::Item if in_top_list => file.item(range, true),
                    _ if top => file.item(range, false),
                    _ => {}
                }
                stack.push(tag);
            }
            Event::End(end) => {
                stack.pop();
                if let (TagEnd::Heading(level), Some(h)) = (end, heading_text.as_ref()) {
                    // A top-level title (`# Conventions`) or a section (`## Gotchas`)
                    // sets the type of what follows; an unknown heading resets it.
                    if level != HeadingLevel::H1 || kind_of_heading(h).is_some() {
                        file.section = kind_of_heading(h);
                    }
                    file.heading(level, h);
                    heading_text = None;
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading_text.as_mut() {
                    h.push_str(&t);
                }
            }
            _ => {}
        }
    }
    let mut out = file.out;
    let sid = out.front_matter.session_id.clone();
    for item in &mut out.items {
        item.session_id = sid.clone();
    }
    out
}

/// The state of one file's parse.
struct FileParser<'a> {
    path: &'a str,
    text: &'a str,
    lines: LineIndex,
    /// The type set by the current heading, if it names one.
    section: Option<ItemKind>,
    default_kind: ItemKind,
    file_date: String,
    /// The date the nearest heading above names (`## 2023-05-08`), with that
    /// heading's level: it dates the items under it, down to the next
    /// heading of the same or a higher level.
    heading_date: Option<(HeadingLevel, String)>,
    /// The last item since the last heading, by index.
    previous_in_section: Option<usize>,
    /// How often each normalised text was seen, to keep ids distinct.
    occurrences: HashMap<String, usize>,
    out: ParsedFile,
}

impl FileParser<'_> {
    fn front_matter(&mut self, range: std::ops::Range<usize>) {
        let yaml = strip_fences(&self.text[range.clone()]);
        match serde_yaml::from_str::<FrontMatter>(yaml) {
            Ok(mut fm) => {
                if let Some(d) = fm.date.as_ref().and_then(yaml_date) {
                    self.file_date = d;
                }
                let block = &self.text[range.clone()];
                let title_at = block.find("\ntitle:").map_or(0, |at| at + 1);
                let title_line = self.lines.line_of(range.start + title_at);
                self.out.withheld_title = fm.make_visible().map(|w| (title_line, w));
                self.out.title_line = fm.title.as_ref().map_or(0, |_| title_line);
                self.out.front_matter = fm;
            }
            Err(e) => self.out.warnings.push(format!(
                "{}:{}: front matter is not valid YAML ({e}); its fields are ignored",
                self.path,
                self.lines.line_of(range.start)
            )),
        }
    }

    fn heading(&mut self, level: HeadingLevel, text: &str) {
        self.previous_in_section = None;
        if self.heading_date.as_ref().is_some_and(|(l, _)| level <= *l) {
            self.heading_date = None;
        }
        if let Some(day) =
            crate::text::analysis::when::day_in(text).and_then(|d| parse_date(&d.to_string()))
        {
            self.heading_date = Some((level, day));
        }
    }

    fn item(&mut self, range: std::ops::Range<usize>, is_list_item: bool) {
        let raw = self.text[range.clone()].trim_end();
        if raw.trim().is_empty() {
            return;
        }
        let body = if is_list_item {
            strip_list_marker(raw)
        } else {
            raw.to_string()
        };
        let (tag_kind, body) = take_type_tag(&body);
        // Where the line came from is not what it says: the mark is kept
        // apart, and an agent given the line is not handed its URL.
        let (body, outside) = crate::store::outside::take(&body);
        // The id covers the date (the same words on two dates are two facts);
        // the searchable text does not (a date is metadata, not content).
        let n = self
            .occurrences
            .entry(crate::store::item::normalise(&body))
            .or_insert(0);
        let id = item_id(self.path, &body, *n);
        *n += 1;
        let (leading, rest) = leading_date(&body);
        let body = match leading {
            Some(_) => rest
                .trim_start_matches([':', ' ', '-', '\u{2014}', '*'])
                .to_string(),
            None => body,
        };
        let own_date = leading.or_else(|| opening_day(&body));
        // What an agent may be given is what a person sees: hidden text
        // out, then the rules (crate::text::safety).
        let body = safety::strip_hidden(&body).into_owned();
        if body.trim().is_empty() {
            return;
        }
        let withheld = safety::judge(&body);
        self.out.items.push(Item {
            id,
            kind: tag_kind.unwrap_or(self.section.unwrap_or(self.default_kind)),
            text: body,
            path: self.path.to_string(),
            line_start: self.lines.line_of(range.start),
            line_end: self
                .lines
                .line_of(range.start + raw.len().saturating_sub(1)),
            date: own_date
                .or_else(|| self.heading_date.as_ref().map(|(_, d)| d.clone()))
                .unwrap_or_else(|| self.file_date.clone()),
            session_id: None,
            withheld,
            awaiting_check: false,
            outside,
        });
        let this = self.out.items.len() - 1;
        if let Some(previous) = self.previous_in_section.replace(this) {
            if asks(&self.out.items[previous].text) {
                self.out.replies.push((previous, this));
            }
        }
    }
}

/// Whether a text asks something: a `?` that ends a sentence, not one
/// inside a URL or code (`/search?q=`, `a ?: b`).
fn asks(text: &str) -> bool {
    text.match_indices('?').any(|(i, _)| {
        text[i + 1..]
            .chars()
            .next()
            .is_none_or(|c| c.is_whitespace() || "\"')]*_`".contains(c))
    })
}

/// Type of an item from its file name, when no heading or tag says otherwise.
fn kind_of_file(path: &str) -> ItemKind {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.strip_suffix(".md").unwrap_or(name);
    match stem {
        "conventions" => ItemKind::Convention,
        "architecture" | "decisions" => ItemKind::Adr,
        "history" => ItemKind::History,
        "notes" => ItemKind::Note,
        "gotchas" => ItemKind::Gotcha,
        _ => ItemKind::Text,
    }
}

/// Type of items under a heading such as `## Conventions Detected`.
fn kind_of_heading(heading: &str) -> Option<ItemKind> {
    let h = heading.to_ascii_lowercase();
    if h.contains("summary") {
        Some(ItemKind::Summary)
    } else if h.contains("convention") {
        Some(ItemKind::Convention)
    } else if h.contains("architecture") || h.contains("decision") || h.contains("adr") {
        Some(ItemKind::Adr)
    } else if h.contains("gotcha") || h.contains("pitfall") {
        Some(ItemKind::Gotcha)
    } else if h.contains("history") {
        Some(ItemKind::History)
    } else if h.contains("note") {
        Some(ItemKind::Note)
    } else {
        None
    }
}

fn strip_fences(block: &str) -> &str {
    let b = block.trim();
    let b = b.strip_prefix("---").unwrap_or(b);
    let b = b.trim_end().strip_suffix("---").unwrap_or(b);
    b.strip_suffix("...").unwrap_or(b)
}

fn yaml_date(v: &serde_yaml::Value) -> Option<String> {
    v.as_str().and_then(parse_date)
}

/// Accepts RFC 3339 timestamps, `YYYY-MM-DD HH:MM[:SS]` and `YYYY-MM-DD`
/// (both taken as UTC) and returns RFC 3339.
pub fn parse_date(s: &str) -> Option<String> {
    let s = s.trim();
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(ts.to_string());
    }
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().to_string());
    }
    if let Ok(d) = s.parse::<jiff::civil::Date>() {
        return d
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().to_string());
    }
    None
}

/// `- foo` / `* foo` / `1. foo` -> `foo`, with continuation lines dedented.
fn strip_list_marker(raw: &str) -> String {
    let mut lines = raw.lines();
    let first = lines.next().unwrap_or("");
    let trimmed = first.trim_start();
    let marker_len = if trimmed.starts_with(['-', '*', '+']) {
        1
    } else {
        trimmed
            .find(['.', ')'])
            .filter(|&i| trimmed[..i].chars().all(|c| c.is_ascii_digit()))
            .map_or(0, |i| i + 1)
    };
    let rest = trimmed[marker_len..].trim_start();
    let indent = first.len() - rest.len();
    let mut out = rest.to_string();
    for line in lines {
        out.push('\n');
        // Only ASCII indentation is stripped, so the cut is always on a char
        // boundary (an ideographic space U+3000 is three bytes).
        let strip = line
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        out.push_str(&line[strip.min(indent)..]);
    }
    out
}

/// A leading `` `[convention]` `` or `[ADR]` tag, and the text after it.
fn take_type_tag(body: &str) -> (Option<ItemKind>, String) {
    let t = body.trim_start();
    let label = match t.strip_prefix("`[") {
        Some(r) => r.split_once("]`"),
        None => bracketed_label(t),
    };
    match label.and_then(|(inner, rest)| Some((ItemKind::parse(inner)?, rest))) {
        Some((kind, rest)) => (Some(kind), rest.trim_start().to_string()),
        None => (None, body.to_string()),
    }
}

/// A leading `[label]` and the text after it; `[link](url)` is a link, not a
/// label.
fn bracketed_label(t: &str) -> Option<(&str, &str)> {
    let (inner, rest) = t.strip_prefix('[')?.split_once(']')?;
    (!rest.starts_with('(')).then_some((inner, rest))
}

/// An item's own date: a leading `YYYY-MM-DD` (optionally bold), as history
/// and remembered items carry.
fn leading_date(body: &str) -> (Option<String>, &str) {
    let t = body.trim_start().trim_start_matches("**");
    if t.len() >= 10 && t.is_char_boundary(10) {
        if let Some(d) = t[..10]
            .parse::<jiff::civil::Date>()
            .ok()
            .and_then(|d| parse_date(&d.to_string()))
        {
            return (Some(d), &t[10..]);
        }
    }
    (None, body)
}

/// A day written in parentheses where an item opens, after an optional
/// `[label]`: `[D1:3] (8 May, 2023) Caroline: ...`, `(2023-05-08) ...`. The
/// words stay in the item's text; the day dates it like a leading date.
fn opening_day(body: &str) -> Option<String> {
    let t = body.trim_start();
    let t = bracketed_label(t).map_or(t, |(_, rest)| rest.trim_start());
    let (inside, _) = t.strip_prefix('(')?.split_once(')')?;
    let day = crate::text::analysis::when::day_in(inside)?;
    parse_date(&day.to_string())
}

/// Byte offset -> 1-based line number.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }
    fn line_of(&self, byte: usize) -> usize {
        match self.starts.binary_search(&byte) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}

#[cfg(test)]
mod tests;
