//! How often each line was given and used, over every session this machine
//! captured (`given::kept` counts them): what the hooks and `recall` rank
//! by, so a line agents use rises and one given again and again and never
//! used sinks.
//!
//! Kept in `.thehook/index/use-tally.tsv`, worked out again from the kept
//! records at each capture ([`Tally::store`]). A hook reads it as it is and
//! looks up only the lines it ranks, by binary search over its sorted lines
//! ([`TallyFile`]): nothing is parsed that is not asked for. Like the
//! records it is this machine's own and never committed: a count that
//! travelled by git would be a claim nobody can check, and anyone who can
//! push a file could raise their own line for every agent with it.
//!
//! A line is known by its citation (`path:line`). A session file does not
//! move once written; an item of a knowledge file edited above it gets a
//! new citation and starts again from the prior, as a new line does.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::Result;
use crate::project::{Project, SESSIONS_PREFIX};
use crate::store::item::file_of_citation;
use crate::store::write_atomic;

/// The prior, as if every line had been given to this many sessions and
/// used by [`PRIOR_USED`] of them: a line given once and not used is not
/// buried, and a few sessions move it only a little.
pub const PRIOR_GIVEN: f32 = 4.0;
pub const PRIOR_USED: f32 = 2.0;

const FILE: &str = "use-tally.tsv";

/// In how many sessions a line (or a file's lines) was given, and in how
/// many of those it was used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct UseCount {
    pub given: u32,
    pub used: u32,
}

impl UseCount {
    /// What ranking multiplies a line's score by: 1 for a line never given,
    /// above 1 for one used more often than the prior says, below for one
    /// used less (never 0).
    pub fn weight(&self) -> f32 {
        let share = (self.used as f32 + PRIOR_USED) / (self.given as f32 + PRIOR_GIVEN);
        share / (PRIOR_USED / PRIOR_GIVEN)
    }

    /// `used in 4 of 6 sessions it was given to`, or `None` when never given.
    pub fn says(&self) -> Option<String> {
        (self.given > 0).then(|| {
            let sessions = if self.given == 1 {
                "session"
            } else {
                "sessions"
            };
            format!(
                "used in {} of {} {sessions} it was given to",
                self.used, self.given
            )
        })
    }
}

/// Every citation's count, and every file's (any of its lines).
#[derive(Debug, Default)]
pub struct Tally {
    pub lines: HashMap<String, UseCount>,
    pub files: HashMap<String, UseCount>,
}

impl Tally {
    /// Counts one session's lines given, each `(citation, used)`: the
    /// session counts once per line (or file) however many of its blocks
    /// gave it, and as used when any of them was used.
    pub fn add_session<'a>(&mut self, given: impl IntoIterator<Item = (&'a str, bool)>) {
        let mut lines: HashMap<&str, bool> = HashMap::new();
        for (cited, used) in given {
            *lines.entry(cited).or_default() |= used;
        }
        // Per file only for session files: the hooks weigh earlier
        // sessions by them, and ask about no other file.
        let mut files: HashMap<&str, bool> = HashMap::new();
        for (cited, used) in &lines {
            let file = file_of_citation(cited);
            if file.starts_with(SESSIONS_PREFIX) {
                *files.entry(file).or_default() |= *used;
            }
        }
        add(&mut self.lines, lines);
        add(&mut self.files, files);
    }

    /// Keeps the tally for the hooks: the most any file's weight is
    /// (`#\tweight`), then one line per file (`F`) and per citation (`L`),
    /// `kind\tkey\tgiven\tused`, sorted, so [`TallyFile`] can search it. A key with a tab or a line break in it
    /// is left out (its line ranks as never given).
    pub(crate) fn store(&self, project: &Project) -> Result<()> {
        write_atomic(&project.index_dir().join(FILE), self.text().as_bytes())
    }

    /// The tally as the hooks read it, without keeping it.
    #[cfg(test)]
    pub(crate) fn to_file(&self) -> TallyFile {
        TallyFile::of(self.text())
    }

    fn text(&self) -> String {
        let mut rows: Vec<(&str, &str, UseCount)> = Vec::new();
        for (kind, map) in [(FILE_ROW, &self.files), (LINE_ROW, &self.lines)] {
            rows.extend(
                map.iter()
                    .filter(|(key, _)| !key.contains(['\t', '\n', '\r']))
                    .map(|(key, count)| (kind, key.as_str(), *count)),
            );
        }
        rows.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let most = rows
            .iter()
            .filter(|(kind, _, _)| *kind == FILE_ROW)
            .map(|(_, _, count)| count.weight())
            .fold(1.0, f32::max);
        let mut text = format!("{MOST_ROW}\t{most}\n");
        for (kind, key, count) in rows {
            text.push_str(&format!("{kind}\t{key}\t{}\t{}\n", count.given, count.used));
        }
        text
    }

    /// The count of the line cited `cited`.
    pub fn line(&self, cited: &str) -> UseCount {
        self.lines.get(cited).copied().unwrap_or_default()
    }

    /// The count of any line of the file at `path`.
    pub fn file(&self, path: &str) -> UseCount {
        self.files.get(path).copied().unwrap_or_default()
    }
}

const MOST_ROW: &str = "#";
const FILE_ROW: &str = "F";
const LINE_ROW: &str = "L";

/// The tally as the last capture kept it. A line's count is found by
/// binary search over the file's bytes (every probe lands on the line
/// around it), so a hook that ranks 60 lines reads 60 times about 16 lines
/// of a file of any size; the files' counts, which "Where you left off" asks
/// of the sessions it meets, are found the same way.
#[derive(Debug, Default)]
pub struct TallyFile {
    text: Bytes,
}

/// The file's bytes: mapped, so a lookup reads only the pages it probes
/// (a team's year keeps 2.5 MB), or owned.
#[derive(Debug)]
enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Default for Bytes {
    fn default() -> Bytes {
        Bytes::Owned(Vec::new())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(bytes) => bytes,
        }
    }
}

impl TallyFile {
    /// The kept tally; empty when there is none or it cannot be read (every
    /// line then ranks as never given).
    pub fn load(project: &Project) -> TallyFile {
        let Ok(file) = std::fs::File::open(project.index_dir().join(FILE)) else {
            return TallyFile::default();
        };
        // SAFETY: the file is only ever replaced whole, by a rename
        // (`write_atomic`), never written in place, so the bytes mapped
        // here do not change while the map lives; it is read only.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) => TallyFile {
                text: Bytes::Mapped(map),
            },
            Err(_) => TallyFile::default(),
        }
    }

    #[cfg(test)]
    fn of(text: impl Into<Vec<u8>>) -> TallyFile {
        TallyFile {
            text: Bytes::Owned(text.into()),
        }
    }

    /// The count of the line cited `cited`.
    pub fn line(&self, cited: &str) -> UseCount {
        self.find(LINE_ROW, cited)
    }

    /// The count of any line of the file at `path`.
    pub fn file(&self, path: &str) -> UseCount {
        self.find(FILE_ROW, path)
    }

    /// The most any file's [`UseCount::weight`] is: 1 with no tally.
    pub fn most_file_weight(&self) -> f32 {
        let first = self.text.split(|b| *b == b'\n').next().unwrap_or_default();
        match row(first) {
            (kind, weight, _) if kind == MOST_ROW.as_bytes() => std::str::from_utf8(weight)
                .ok()
                .and_then(|w| w.parse::<f32>().ok())
                .filter(|w| w.is_finite())
                .map_or(1.0, |w| w.max(1.0)),
            _ => 1.0,
        }
    }

    fn find(&self, kind: &str, key: &str) -> UseCount {
        let (mut low, mut high) = (0, self.text.len());
        let wanted = (kind.as_bytes(), key.as_bytes());
        while low < high {
            let mid = low + (high - low) / 2;
            let start = self.text[..mid]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |at| at + 1);
            let end = self.text[mid..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(self.text.len(), |at| mid + at);
            let (kind, key, counts) = row(&self.text[start..end]);
            match (kind, key).cmp(&wanted) {
                std::cmp::Ordering::Less => low = end + 1,
                std::cmp::Ordering::Greater => high = start,
                std::cmp::Ordering::Equal => return counted(counts),
            }
        }
        UseCount::default()
    }
}

/// A kept line's kind, key and counts.
fn row(line: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let mut fields = line.splitn(3, |b| *b == b'\t');
    let kind = fields.next().unwrap_or_default();
    let key = fields.next().unwrap_or_default();
    (kind, key, fields.next().unwrap_or_default())
}

/// `given\tused`; a damaged line says nothing: its line ranks as never given.
fn counted(counts: &[u8]) -> UseCount {
    let number = |digits: &[u8]| -> Option<u32> {
        // Digits only: `parse` would take a sign.
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(digits).ok()?.parse().ok()
    };
    let mut fields = counts.split(|b| *b == b'\t');
    let given = fields.next().and_then(number);
    let used = fields.next().and_then(number);
    match (given, used, fields.next()) {
        (Some(given), Some(used), None) if used <= given => UseCount { given, used },
        _ => UseCount::default(),
    }
}

fn add(into: &mut HashMap<String, UseCount>, seen: HashMap<&str, bool>) {
    for (key, used) in seen {
        let count = into.entry(key.to_string()).or_default();
        count.given += 1;
        count.used += u32::from(used);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_used_rises_one_never_used_sinks_and_a_new_one_stays() {
        const S1_3: &str = ".thehook/sessions/1.md:3";
        const S2_5: &str = ".thehook/sessions/2.md:5";
        const S2_9: &str = ".thehook/sessions/2.md:9";
        let mut tally = Tally::default();
        // The same line given twice in one session counts once.
        tally.add_session([(S1_3, true), (S2_5, false), (S1_3, false)]);
        tally.add_session([(S1_3, true), (S2_5, false)]);
        tally.add_session([(S1_3, false), (S2_5, false), (S2_9, true)]);
        let used = tally.line(S1_3);
        assert_eq!(used, UseCount { given: 3, used: 2 });
        assert_eq!(
            used.says().as_deref(),
            Some("used in 2 of 3 sessions it was given to")
        );
        assert!(used.weight() > 1.0);
        assert!(tally.line(S2_5).weight() < 1.0);
        assert_eq!(tally.line("new.md:1").weight(), 1.0);
        assert_eq!(tally.line("new.md:1").says(), None);
        // A file counts a session once, as used when any of its lines was.
        assert_eq!(
            tally.file(".thehook/sessions/2.md"),
            UseCount { given: 3, used: 1 }
        );
        // Only session files are counted per file: no hook asks about another.
        tally.add_session([(".thehook/knowledge/notes.md:4", true)]);
        assert_eq!(tally.line(".thehook/knowledge/notes.md:4").used, 1);
        assert_eq!(
            tally.file(".thehook/knowledge/notes.md"),
            UseCount::default()
        );
    }

    #[test]
    fn the_kept_file_answers_as_the_tally_does_and_shrugs_off_damage() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let mut tally = Tally::default();
        let keys: Vec<String> = (0..50)
            .map(|n| format!(".thehook/sessions/s{n}.md:{}", n % 7))
            .collect();
        for (n, key) in keys.iter().enumerate() {
            for session in 0..n % 5 {
                tally.add_session([(key.as_str(), session % 2 == 0), ("odd\tkey:1", true)]);
            }
        }
        tally.store(&project).unwrap();
        let kept = TallyFile::load(&project);
        for key in &keys {
            assert_eq!(kept.line(key), tally.line(key), "{key}");
            let file = key.rsplit_once(':').unwrap().0;
            assert_eq!(kept.file(file), tally.file(file), "{file}");
        }
        assert_eq!(kept.line("never.md:1"), UseCount::default());
        // A key git could never have written is not kept.
        assert_eq!(kept.line("odd\tkey:1"), UseCount::default());
        let text =
            std::fs::read_to_string(dir.path().join(".thehook/index/use-tally.tsv")).unwrap();
        let most = keys
            .iter()
            .map(|k| tally.file(k.rsplit_once(':').unwrap().0).weight())
            .fold(1.0, f32::max);
        assert!(most > 1.0);
        assert_eq!(kept.most_file_weight(), most);
        assert_eq!(TallyFile::default().most_file_weight(), 1.0);
        let first = format!("#\t{most}\nF\t.thehook/sessions/s1.md\t1\t1\n");
        assert!(text.starts_with(&first), "{text}");
        // A damaged file: its lines rank as never given, nothing fails.
        let damaged = TallyFile::of("F\ta.md\t2\n L\tx\t1\t9\nL\ty:1\tmany\t0");
        assert_eq!(damaged.file("a.md"), UseCount::default());
        assert_eq!(damaged.line("y:1"), UseCount::default());
        assert_eq!(TallyFile::default().line("y:1"), UseCount::default());
    }
}
