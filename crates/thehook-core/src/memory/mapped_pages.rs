//! Letting go of the pages of an LMDB file that this process has read
//! through LMDB's memory map, so that a long write (a `reindex`) does not
//! keep the whole index and embedding cache in its resident memory.
//!
//! Why: LMDB reads through a shared, read-only map of `data.mdb`, and every
//! page read stays counted in the process's RSS until the map closes. A
//! `reindex` of a team's year read all 99 MB of the embedding cache and
//! 121 MB of the index it wrote that way, two thirds of its 330 MB peak.
//! Without `MDB_WRITEMAP` (thehook never sets it) LMDB writes with
//! `write(2)`, so the map holds no page of its own: a page let go
//! (`madvise(MADV_DONTNEED)`) is read again from the page cache, unchanged,
//! the next time LMDB touches it.
//!
//! LMDB gives the map's address only for a fixed map, so it is found in
//! `/proc/self/maps` by the file's inode: Linux only. Elsewhere this does
//! nothing, and the pages stay until the map closes, as before.

use std::path::Path;

/// Lets go of the pages of `data.mdb` in `dir` mapped by this process.
pub(crate) fn let_go(dir: &Path) {
    #[cfg(target_os = "linux")]
    linux::let_go(&dir.join("data.mdb"));
    #[cfg(not(target_os = "linux"))]
    let _ = dir;
}

#[cfg(target_os = "linux")]
mod linux {
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    pub(super) fn let_go(file: &Path) {
        let Ok(inode) = std::fs::metadata(file).map(|m| m.ino()) else {
            return;
        };
        let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
            return;
        };
        for (start, end) in ranges_of(&maps, inode, file) {
            // SAFETY: the range is a shared, read-only map of the file (LMDB
            // without MDB_WRITEMAP), so no data lives only in it: a page let
            // go is read again from the page cache when next touched.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
            }
        }
    }

    /// The address ranges of `/proc/self/maps` lines that map the file of
    /// `inode` named like `file`, read-only and shared (`r--s`).
    pub(super) fn ranges_of(maps: &str, inode: u64, file: &Path) -> Vec<(usize, usize)> {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        maps.lines()
            .filter_map(|line| {
                // address perms offset dev inode path
                let mut fields = line.split_whitespace();
                let (range, perms) = (fields.next()?, fields.next()?);
                let line_inode: u64 = fields.nth(2)?.parse().ok()?;
                let path = fields.next()?;
                if line_inode != inode || !path.ends_with(name) || perms != "r--s" {
                    return None;
                }
                let (start, end) = range.split_once('-')?;
                let start = usize::from_str_radix(start, 16).ok()?;
                let end = usize::from_str_radix(end, 16).ok()?;
                (end > start).then_some((start, end))
            })
            .collect()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn only_the_files_shared_read_only_maps_are_found() {
            let maps = "\
7f0000000000-7f0000100000 r--s 00000000 fd:01 4242 /x/.thehook/index/data.mdb
7f0000200000-7f0000300000 rw-s 00000000 fd:01 4242 /x/.thehook/index/data.mdb
7f0000400000-7f0000500000 r--s 00000000 fd:01 4343 /x/cache/embeddings/data.mdb
7f0000600000-7f0000700000 r--p 00000000 fd:01 4242 /x/.thehook/index/lock.mdb
7f0000800000-7f0000900000 rw-p 00000000 00:00 0 [heap]
";
            let file = Path::new("/x/.thehook/index/data.mdb");
            assert_eq!(
                ranges_of(maps, 4242, file),
                vec![(0x7f00_0000_0000, 0x7f00_0010_0000)]
            );
            assert!(ranges_of(maps, 9999, file).is_empty());
        }
    }
}
