//! The markdown store: the truth that the index is rebuilt from, parsed into
//! [`item`]s (with the [`outside`] mark of a line only a source outside the
//! project said). Reading never modifies a file; every write is atomic
//! (temp file in the same folder, then rename), so a crash leaves either
//! the old file or the new one.

pub(crate) mod id_list;
pub mod item;
pub mod outside;
mod parse;
mod stamp;
mod walk;

use std::io::Write as _;
use std::path::{Path, PathBuf};

pub use parse::{parse_date, parse_markdown, title_id, FrontMatter, ParsedFile};
pub(crate) use stamp::{stat, Stamp, RACY_WINDOW_NS};

use crate::error::{fix, Error, Fix, IoContext, Result, Step};
use crate::project::Project;
use crate::store::item::{Item, ItemKind};

/// A markdown file under `sessions/` or `knowledge/`, as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Project-relative, `/`-separated (`.thehook/knowledge/notes.md`).
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (change detection).
    pub mtime_ns: i128,
}

/// The markdown files of a project as one listing found them.
pub struct Listing {
    /// Sorted by path, so that every run sees them in the same order.
    pub files: Vec<SourceFile>,
    /// What a later [`Stamp::holds`] compares; `None` when something had
    /// just changed.
    pub(crate) stamp: Option<Stamp>,
}

/// Every `*.md` under `sessions/` and `knowledge/`. Unreadable folders
/// become warnings.
pub fn list_sources(project: &Project, warnings: &mut Vec<String>) -> Listing {
    let now = jiff::Timestamp::now().as_nanosecond();
    let mut files = Vec::new();
    let mut stamped = Vec::new();
    for dir in [project.knowledge_dir(), project.sessions_dir()] {
        if !dir.exists() {
            let (size, mtime) = stamp::stat(&dir);
            stamped.push((project.relative(&dir), size, mtime));
            continue;
        }
        let knowledge = dir == project.knowledge_dir();
        let found = walk::markdown_files(&dir, warnings);
        for (path, (size, mtime)) in found.folders {
            stamped.push((project.relative(&path), size, mtime));
        }
        for (path, meta) in found.files {
            let file = SourceFile {
                rel: project.relative(&path),
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
                abs: path,
            };
            // People edit knowledge files in place: each is stamped.
            if knowledge {
                stamped.push((file.rel.clone(), file.size, file.mtime_ns));
            }
            files.push(file);
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Listing {
        files,
        stamp: Stamp::new(stamped, now),
    }
}

/// The markdown file `rel` (project-relative) as a listing finds it, or
/// `None` when there is none: a single file checked without listing its
/// folder (an answer's citations, `SyncPlan::only`).
pub(crate) fn source_file(project: &Project, rel: &str) -> Option<SourceFile> {
    let abs = project.root().join(rel);
    let meta = std::fs::metadata(&abs).ok().filter(|m| m.is_file())?;
    let markdown = rel.ends_with(".md")
        && (rel.starts_with(crate::project::SESSIONS_PREFIX)
            || rel.starts_with(crate::project::KNOWLEDGE_PREFIX));
    markdown.then(|| SourceFile {
        rel: rel.to_string(),
        size: meta.len(),
        mtime_ns: mtime_ns(&meta),
        abs,
    })
}

/// A session file and what its front matter says.
#[derive(Debug, Clone)]
pub struct SessionFile {
    pub path: PathBuf,
    pub front_matter: FrontMatter,
}

/// Every session file under `sessions/` with its front matter (only the
/// front matter is parsed). Unreadable files are left out.
pub fn session_files(project: &Project) -> Vec<SessionFile> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(project.sessions_dir())
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        let path = entry.path();
        if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        out.push(SessionFile {
            path: path.to_path_buf(),
            front_matter: front_matter(&text).unwrap_or_default(),
        });
    }
    out
}

/// The YAML front matter at the top of a markdown text, if it has one that reads.
pub fn front_matter(text: &str) -> Option<FrontMatter> {
    let body = text.strip_prefix("---")?.trim_start_matches([' ', '\t']);
    let body = body
        .strip_prefix('\n')
        .or_else(|| body.strip_prefix("\r\n"))?;
    let end = body.find("\n---")?;
    serde_yaml::from_str(&body[..end]).ok()
}

fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .map_or(0, |t| t.as_nanosecond())
}

/// Reads and parses one source file.
/// Bytes that are not UTF-8 are replaced (and reported); an unreadable file
/// is an error for the caller to report.
pub fn read_source(file: &SourceFile) -> Result<ParsedFile> {
    let bytes = std::fs::read(&file.abs).at("cannot read", &file.abs)?;
    Ok(parse_source(file, &bytes))
}

/// [`read_source`], with the SHA-256 of the bytes read (hex), by which a
/// sync tells a file written again within its timestamp's granularity.
pub(crate) fn read_source_hashed(file: &SourceFile) -> Result<(ParsedFile, String)> {
    let bytes = std::fs::read(&file.abs).at("cannot read", &file.abs)?;
    Ok((parse_source(file, &bytes), crate::hash::sha256_hex(&bytes)))
}

/// The SHA-256 of `file`'s bytes as they are now (hex); `None` when it
/// cannot be read.
pub(crate) fn source_hash(file: &SourceFile) -> Option<String> {
    std::fs::read(&file.abs)
        .ok()
        .map(|bytes| crate::hash::sha256_hex(&bytes))
}

fn parse_source(file: &SourceFile, bytes: &[u8]) -> ParsedFile {
    let file_date = jiff::Timestamp::from_nanosecond(file.mtime_ns)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string();
    let (text, lossy_at) = match std::str::from_utf8(bytes) {
        Ok(t) => (t.to_string(), None),
        Err(e) => (
            String::from_utf8_lossy(bytes).into_owned(),
            Some(e.valid_up_to()),
        ),
    };
    let mut parsed = parse_markdown(&file.rel, &text, &file_date);
    if let Some(at) = lossy_at {
        let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
        parsed.warnings.push(format!(
            "{}:{line}: bytes that are not UTF-8 were read as U+FFFD (save the file as UTF-8)",
            file.rel
        ));
    }
    parsed
}

/// Writes `content` to `path` atomically: a temp file in the same folder,
/// flushed to disk, then renamed over the target.
pub fn write_atomic(path: &Path, content: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).at("cannot create folder", dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".thehook-tmp-")
        .tempfile_in(dir)
        .at("cannot create a temp file in", dir)?;
    // Errors name the file being written, not its temporary twin (deleted
    // on the way out): `path` is left as it was.
    tmp.write_all(content).at("cannot write", path)?;
    tmp.as_file().sync_all().at("cannot flush", path)?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Keep the permissions a user gave the file.
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path)
        .map_err(|e| Error::io("cannot replace", path, e.error))?;
    Ok(())
}

/// Appends `text` as a new item of `kind` to `knowledge/notes.md`, dated
/// today, and returns the item as the index will see it. The text is kept on
/// one list item: inner newlines become continuation lines.
pub fn append_note(project: &Project, kind: ItemKind, text: &str, today: &str) -> Result<Item> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::Usage {
            problem: "there is nothing to remember: the text is empty".into(),
            source: None,
            fix: "give the fact to remember, e.g. \"tests live in __tests__/\"".into(),
        });
    }
    let path = project.knowledge_dir().join("notes.md");
    let mut content = if path.exists() {
        read_for_rewrite(
            &path,
            1,
            "save it as UTF-8, then remember the fact again".into(),
        )?
    } else {
        "# Notes\n\n".to_string()
    };
    if !content.is_empty() && !content.ends_with('\n') {
        content.push('\n');
    }
    let body = text.lines().collect::<Vec<_>>().join("\n  ");
    content.push_str(&format!("- `[{}]` {today}: {body}\n", kind.tag()));
    write_atomic(&path, content.as_bytes())?;
    let rel = project.relative(&path);
    parse_markdown(&rel, &content, today)
        .items
        .pop()
        .ok_or_else(|| Error::Markdown {
            path,
            line: content.lines().count(),
            problem: "the appended item could not be read back".into(),
            fix: "check the end of the file for an unclosed code block".into(),
        })
}

/// The text of a file thehook is about to rewrite; refuses one that is not
/// UTF-8 rather than replacing its bytes.
fn read_for_rewrite(path: &Path, line: usize, fix: Fix) -> Result<String> {
    let bytes = std::fs::read(path).at("cannot read", path)?;
    String::from_utf8(bytes).map_err(|_| Error::Markdown {
        path: path.to_path_buf(),
        line,
        problem: "the file is not valid UTF-8, so thehook will not rewrite it".into(),
        fix,
    })
}

/// Removes `item`'s lines from its file, after checking that the file still
/// holds that item at those lines (it may have been edited since indexing).
pub fn remove_item(project: &Project, item: &Item) -> Result<()> {
    replace_item(project, item, None).map(|_| ())
}

/// Puts `text` in the place of `item`, as one line that keeps the item's
/// list marker and type tag (`- `[convention]` <text>`), and returns the
/// item it became; `None` removes it.
pub fn replace_item(project: &Project, item: &Item, text: Option<&str>) -> Result<Option<Item>> {
    let path = project.root().join(&item.path);
    let current_text = read_for_rewrite(
        &path,
        item.line_start,
        "save it as UTF-8, or edit the item by hand".into(),
    )?;
    let current = parse_markdown(&item.path, &current_text, &item.date);
    let Some(found) = current.items.iter().find(|i| i.id == item.id) else {
        return Err(Error::ItemNotFound {
            miss: crate::error::ItemMiss::Gone {
                id: item.id.clone(),
                path: item.path.clone(),
            },
            fix: fix!(
                Step::Reindex,
                ", then ",
                Step::Recall,
                " to find its new id"
            ),
        });
    };
    let mut kept = String::with_capacity(current_text.len());
    for (i, line) in current_text.split_inclusive('\n').enumerate() {
        let n = i + 1;
        if n < found.line_start || n > found.line_end {
            kept.push_str(line);
        } else if let (Some(text), true) = (text, n == found.line_start) {
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            kept.push_str(&format!("{}{flat}\n", item_prefix(line)));
        }
    }
    write_atomic(&path, kept.as_bytes())?;
    Ok(text.and_then(|_| {
        parse_markdown(&item.path, &kept, &item.date)
            .items
            .into_iter()
            .find(|i| i.line_start == found.line_start)
    }))
}

/// Removes line `line` of the file at `rel` when it still opens with
/// `key` (a front-matter field such as `title:`), else says the file changed.
pub fn remove_front_matter_line(
    project: &Project,
    rel: &str,
    line: usize,
    key: &str,
) -> Result<()> {
    let path = project.root().join(rel);
    let text = read_for_rewrite(&path, line, "save it as UTF-8, or edit it by hand".into())?;
    let mut kept = String::with_capacity(text.len());
    let mut removed = false;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line && l.trim_start().starts_with(key) {
            removed = true;
        } else {
            kept.push_str(l);
        }
    }
    if !removed {
        return Err(Error::ItemNotFound {
            miss: crate::error::ItemMiss::Gone {
                id: format!("{key} line {line}"),
                path: rel.to_string(),
            },
            fix: fix!(Step::Reindex, ", then ", Step::Review, " to find it again"),
        });
    }
    write_atomic(&path, kept.as_bytes())
}

/// The indent, list marker and type tag that open an item's first line.
fn item_prefix(line: &str) -> &str {
    let body = line.trim_start();
    let mut at = line.len() - body.len();
    let marker = ["- ", "* ", "+ "].iter().find(|m| body.starts_with(**m));
    let Some(marker) = marker else {
        return &line[..at];
    };
    at += marker.len();
    let rest = &line[at..];
    for (open, close) in [("`[", "]` "), ("[", "] ")] {
        if let Some(end) = rest.strip_prefix(open).and_then(|r| r.find(close)) {
            return &line[..at + open.len() + end + close.len()];
        }
    }
    &line[..at]
}

/// `.thehook/.gitattributes`: git's built-in union merge for the files that
/// teammates change in parallel (knowledge items, one a line; the ledger of
/// consolidated sessions; the items confirmed in review). Union keeps both sides' lines, so such merges
/// never conflict and lose nothing; it is built into git and the file is
/// committed, so a teammate who never ran `thehook init` gets it too.
pub const MERGE_ATTRIBUTES: &str =
    "# Written by thehook: teammates' memory merges line by line, keeping both sides.\n\
knowledge/*.md merge=union\n\
consolidated.txt merge=union\n\
confirmed.txt merge=union\n";

/// Writes [`MERGE_ATTRIBUTES`] unless `.thehook/.gitattributes` exists (a
/// person's own version is kept). Called by init and before thehook writes
/// a file that merges by union, so projects made before it get it too.
pub fn ensure_merge_attributes(project: &Project) -> Result<()> {
    let path = project.dir().join(".gitattributes");
    if path.exists() {
        return Ok(());
    }
    write_atomic(&path, MERGE_ATTRIBUTES.as_bytes())
}
