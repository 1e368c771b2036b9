//! A transcript file read within a fixed memory bound, whatever its size.
//!
//! Long sessions write transcripts of hundreds of MB, mostly tool output,
//! and a file may be anything (a sparse file of a GB of zeros, one line of
//! 40 MB). Reading one whole, and then its records as JSON values, took
//! more memory than the file's size. A capture needs little of it: the
//! LLM's input is about 21 KB of condensed lines
//! (`capture/steps/condense.rs`), and the session's start (ids, branch,
//! the first prompts) and end (what it did last, where it stopped) matter
//! most. So a file of up to [`WHOLE_UP_TO`] is read whole, as before; a
//! larger one as its first [`HEAD`] and its last [`TAIL`] bytes, each cut
//! at line ends so no record is torn, and the transcript says what was left
//! out. So a capture's memory is bounded whatever the file's size
//! (docs/capture.md has the measured peaks: 115 MiB for a 1 GiB
//! transcript, the model included).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// A transcript up to this size is read whole.
pub const WHOLE_UP_TO: u64 = HEAD + TAIL;
/// Of a larger one, the first bytes (the session's ids and first prompts)
/// ...
pub const HEAD: u64 = 4 << 20;
/// ... and the last (what the session did last).
pub const TAIL: u64 = 20 << 20;

/// The bytes read, and what was not.
#[derive(Debug)]
pub struct Bounded {
    pub bytes: Vec<u8>,
    pub left_out: Option<LeftOut>,
}

/// The middle of a file too large to read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftOut {
    /// The file's size.
    pub size: u64,
    /// The bytes not read: `from..to`.
    pub from: u64,
    pub to: u64,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mb = |b: u64| b as f64 / 1e6;
        write!(
            f,
            "the transcript is {:.0} MB: its middle {:.0} MB (bytes {} to {}) were not read; \
             thehook reads a transcript over {:.0} MB as its first {:.0} MB and its last {:.0} MB",
            mb(self.size),
            mb(self.to - self.from),
            self.from,
            self.to,
            mb(WHOLE_UP_TO),
            mb(HEAD),
            mb(TAIL),
        )
    }
}

/// Reads `path` whole up to [`WHOLE_UP_TO`], else its head and tail.
pub fn read(path: &Path) -> std::io::Result<Bounded> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    if size <= WHOLE_UP_TO {
        let mut bytes = Vec::with_capacity(size as usize);
        file.read_to_end(&mut bytes)?;
        return Ok(Bounded {
            bytes,
            left_out: None,
        });
    }
    // The head up to its last line end: a record cut there is left out.
    let mut bytes = Vec::with_capacity(WHOLE_UP_TO as usize + 1);
    (&mut file).take(HEAD).read_to_end(&mut bytes)?;
    let head_end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(head_end);
    // The tail from its first line end: the line it starts in was cut.
    let tail_from = size - TAIL;
    file.seek(SeekFrom::Start(tail_from))?;
    let mut tail = Vec::with_capacity(TAIL as usize);
    file.take(TAIL).read_to_end(&mut tail)?;
    let skip = tail
        .iter()
        .position(|&b| b == b'\n')
        .map_or(tail.len(), |i| i + 1);
    bytes.extend_from_slice(&tail[skip..]);
    Ok(Bounded {
        bytes,
        left_out: Some(LeftOut {
            size,
            from: head_end as u64,
            to: tail_from + skip as u64,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n{\"b\":2}").unwrap();
        let read = read(&path).unwrap();
        assert_eq!(read.bytes, b"{\"a\":1}\n{\"b\":2}");
        assert_eq!(read.left_out, None);
    }

    #[test]
    fn a_large_file_is_read_as_its_head_and_tail_cut_at_line_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let line = |i: usize| format!("{{\"n\":{i},\"pad\":\"{}\"}}\n", "x".repeat(1000));
        let lines: Vec<String> = (0..30_000).map(line).collect();
        let all = lines.concat();
        assert!(all.len() as u64 > WHOLE_UP_TO);
        std::fs::write(&path, &all).unwrap();
        let read = read(&path).unwrap();
        let left_out = read.left_out.expect("the middle left out");
        assert_eq!(left_out.size, all.len() as u64);
        // Whole lines only, the first and the last among them.
        let text = String::from_utf8(read.bytes).unwrap();
        let kept: Vec<&str> = text.lines().collect();
        assert_eq!(kept[0], lines[0].trim_end());
        assert_eq!(*kept.last().unwrap(), lines[29_999].trim_end());
        assert!(kept
            .iter()
            .all(|l| l.starts_with("{\"n\":") && l.ends_with("\"}")));
        assert!(text.len() as u64 <= WHOLE_UP_TO);
        // What is said left out is exactly the bytes not read.
        assert_eq!(
            text.len() as u64,
            left_out.size - (left_out.to - left_out.from)
        );
        assert!(left_out.to_string().contains("were not read"), "{left_out}");
    }

    #[test]
    fn a_file_of_one_huge_line_reads_nothing_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zeros.jsonl");
        let file = File::create(&path).unwrap();
        // Sparse: a GB of zeros takes no disk.
        file.set_len(1 << 30).unwrap();
        let read = read(&path).unwrap();
        assert!(read.bytes.is_empty(), "{} bytes kept", read.bytes.len());
        assert_eq!(read.left_out.unwrap().size, 1 << 30);
    }
}
