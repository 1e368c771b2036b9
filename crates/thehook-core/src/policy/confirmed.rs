//! Lines a person confirmed: given to agents although they ask for an
//! action no build file vouches for and came from an author the project
//! does not trust ([`super::verify`]). Recorded in `.thehook/confirmed.txt`,
//! committed, so the team shares it; by the line's text, so it counts for
//! that text wherever it appears and for no other. A confirmation counts
//! only where git says a trusted author wrote it, or nobody committed it
//! yet (this machine's own): a pull request that confirms its own line
//! confirms nothing.

use std::collections::HashSet;
use std::path::Path;

use crate::error::Result;
use crate::hash::sha256_hex;
use crate::project::Project;
use crate::store::write_atomic;

use super::trust::{origins, TrustedAuthors};

/// The file, relative to the project's root.
pub const FILE: &str = ".thehook/confirmed.txt";

const HEADER: &str = "# Lines of memory a person confirmed: given to agents although no build file\n\
                      # vouches for the action they ask for. One a line: a hash of the text, then\n\
                      # the text. Counted where a trusted author committed it (`thehook review`).\n";

/// Hex characters of a text's hash kept in the file.
const KEY_CHARS: usize = 16;

/// The key a confirmation records for `text`: its words, whitespace
/// collapsed, hashed.
pub(crate) fn key_of(text: &str) -> String {
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    sha256_hex(words.as_bytes())[..KEY_CHARS].to_string()
}

/// The keys of the confirmations a trusted author (or this machine) wrote.
pub(crate) fn trusted_keys<'t>(
    root: &Path,
    trusted: impl FnOnce() -> &'t TrustedAuthors,
) -> HashSet<String> {
    let Ok(text) = std::fs::read_to_string(root.join(FILE)) else {
        return HashSet::new();
    };
    let lines = origins(root, FILE, trusted);
    text.lines()
        .enumerate()
        .filter(|(n, _)| lines.of_line(n + 1).trusted())
        .filter_map(|(_, line)| key_in(line))
        .collect()
}

/// Records a person's confirmation of `text`; `false` when it was there.
pub(crate) fn add(project: &Project, text: &str) -> Result<bool> {
    let path = project.root().join(FILE);
    let now = std::fs::read_to_string(&path).unwrap_or_default();
    let key = key_of(text);
    if now.lines().filter_map(key_in).any(|k| k == key) {
        return Ok(false);
    }
    let mut out = match now.is_empty() {
        true => HEADER.to_string(),
        false => now,
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    let one_line =
        crate::text::clip_chars(&text.split_whitespace().collect::<Vec<_>>().join(" "), 200);
    out.push_str(&format!("{key}  {one_line}\n"));
    write_atomic(&path, out.as_bytes())?;
    Ok(true)
}

/// The key a line of the file records, if it records one.
fn key_in(line: &str) -> Option<String> {
    let word = line.split_whitespace().next()?;
    (word.len() == KEY_CHARS && word.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| word.to_ascii_lowercase())
}
