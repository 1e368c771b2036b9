//! Which repository files an item is about: the paths its text names (in
//! backticks or not, `src/a.rs:12` as `src/a.rs`) and the file names it
//! names in backticks (`loader.go`). The index keeps a link from each to the
//! item (the index's `paths` database), and from each file a
//! session changed to that session, so the file hook finds what memory knows
//! about a file with a few key reads.
//!
//! A name is kept as written: an item may name a file from the repository
//! root (`internal/config/loader.go`) or from somewhere inside it
//! (`config/loader.go`, `loader.go`). A file is looked up by every tail of
//! its path ([`tails`]), so each of those finds it.
//!
//! An item is about a file too when it names, in backticks, a symbol the
//! file defines (`parseConfig()`, `Index::sync`): the index links the item
//! to each symbol it names (`stale::cited_symbols`, the symbols staleness
//! checks), and the file hook looks up the symbols the file defines
//! ([`defined`]).

use std::sync::LazyLock;

use regex::Regex;

use crate::policy::stale::cited_paths;
use crate::store::item::ItemKind;

/// The order items about a file are read in, kind by kind (newest first
/// within one): what bites first.
pub(crate) const KIND_ORDER: [ItemKind; 7] = [
    ItemKind::Gotcha,
    ItemKind::Adr,
    ItemKind::Convention,
    ItemKind::Note,
    ItemKind::Text,
    ItemKind::History,
    ItemKind::Summary,
];

/// Where `kind` comes in [`KIND_ORDER`].
pub(crate) fn rank(kind: ItemKind) -> usize {
    KIND_ORDER
        .iter()
        .position(|k| *k == kind)
        .unwrap_or(KIND_ORDER.len())
}

/// The paths and file names `text` names, each once, in order.
pub(crate) fn named(text: &str) -> Vec<String> {
    // A folder (`src/auth/`) is no file's name.
    let mut out: Vec<String> = cited_paths(text)
        .into_iter()
        .filter(|p| !p.ends_with('/'))
        .collect();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let span = span.trim();
        let span = match span.rsplit_once(':') {
            Some((name, line)) if line.chars().all(|c| c.is_ascii_digit()) => name,
            _ => span,
        };
        if is_file_name(span) && !out.iter().any(|p| p == span) {
            out.push(span.to_string());
        }
    }
    out
}

/// A file name without folders: a stem and an extension of letters
/// (`loader.go`, `Cargo.toml`), not a version (`1.2`), a call (`a.b()`) or
/// a domain-shaped word (`example.com` is let through: rare in memory).
fn is_file_name(span: &str) -> bool {
    let Some((stem, ext)) = span.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && (1..=8).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
        && span
            .chars()
            .all(|c| c.is_alphanumeric() || "._-".contains(c))
        && stem.chars().any(char::is_alphabetic)
}

/// Bytes of a file read for its definitions: the head of a huge file is
/// enough to know what it is about.
pub(crate) const DEFINITIONS_READ: usize = 256 * 1024;
/// Symbols of one file looked up at most.
pub(crate) const MAX_DEFINED: usize = 256;

/// A definition in most languages: a keyword (`fn`, `func`, `def`, `class`,
/// `struct`, `interface`, `type`, `const`, `function`...), after any
/// `export`/`pub`/`async`, then for Go's methods a receiver, then the name.
static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    let modifiers = "export|default|pub(?:\\([^)]*\\))?|public|private|protected|internal|\
                     static|async|abstract|final|open|sealed|data|unsafe|extern|declare";
    let keywords = "fn|fun|func|def|class|struct|enum|trait|interface|type|const|let|var|val|\
                    function\\*?|module|protocol|record|object|macro_rules!";
    // Go's methods put a receiver between the keyword and the name.
    let receiver = r"(?:\([^)]*\)[ \t]*)?";
    Regex::new(&format!(
        r"(?m)^[ \t]*(?:(?:{modifiers})[ \t]+)*(?:{keywords})[ \t]+{receiver}([A-Za-z_][A-Za-z0-9_]*)"
    ))
    .expect("a valid pattern")
});

/// The symbols `source` defines that an item could name (as
/// `stale::cited_symbols` reads them: at least 4 characters, with a
/// lower-case letter), each once, at most [`MAX_DEFINED`]. Read by pattern,
/// not parsed: any language, and a miss costs only a line not given (the
/// read and the pattern cost the file hook about 1 ms, measured whole
/// process against the hook without them).
pub(crate) fn defined(source: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for found in DEFINITION.captures_iter(source) {
        let name = found.get(1).map_or("", |m| m.as_str());
        if name.len() >= 4
            && name.contains(|c: char| c.is_ascii_lowercase())
            && !out.contains(&name)
        {
            out.push(name);
            if out.len() == MAX_DEFINED {
                break;
            }
        }
    }
    out
}

/// The keys a repository-relative `path` is found under: itself, then each
/// shorter tail down to its file name (`a/b/c.go`, `b/c.go`, `c.go`).
pub(crate) fn tails(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(path.match_indices('/').map(move |(at, _)| &path[at + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_names_paths_and_file_names_but_not_versions_or_calls() {
        let text = "Never call `Load()` twice: `internal/config/loader.go:42` caches it \
                    (see cmd/main.go and `loader_test.go`; v1.2 and `1.2` and `a.b()` are not files)";
        assert_eq!(
            named(text),
            vec!["internal/config/loader.go", "cmd/main.go", "loader_test.go"]
        );
        assert!(named("Use `Cargo.toml` workspaces").contains(&"Cargo.toml".to_string()));
        assert!(named("Deploy with https://example.com/x/y.sh").is_empty());
    }

    #[test]
    fn definitions_are_read_in_the_languages_memory_talks_about() {
        let source = "\
package config

func Load(path string) (*Config, error) {}
func (l *Loader) parseConfig(b []byte) error {}
type Loader struct {}
pub(crate) fn sync_paths(x: u8) {}
    async def fetch_all(self):
export async function renderPage() {}
export const useStore = create();
class HttpClient:
    private fun retryLater(delay: Long) {}
// func commentedOut() is not at a line's start after code
let x = 1;
";
        assert_eq!(
            defined(source),
            vec![
                "Load",
                "parseConfig",
                "Loader",
                "sync_paths",
                "fetch_all",
                "renderPage",
                "useStore",
                "HttpClient",
                "retryLater"
            ]
        );
        assert_eq!(
            crate::policy::stale::cited_symbols(
                "Call `parseConfig()` before `Index::sync`; `x` and `jwt.ts` are not symbols"
            ),
            vec!["parseConfig", "sync"]
        );
    }

    #[test]
    fn a_path_is_found_by_every_tail() {
        assert_eq!(
            tails("a/b/c.go").collect::<Vec<_>>(),
            vec!["a/b/c.go", "b/c.go", "c.go"]
        );
        assert_eq!(tails("c.go").collect::<Vec<_>>(), vec!["c.go"]);
    }
}
