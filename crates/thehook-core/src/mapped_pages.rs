//! Letting go of the pages of an LMDB file that this process has read
//! through LMDB's memory map, so that a long write (a `reindex`) does not
//! keep the whole index and embedding cache in its resident memory.
//!
//! Why: LMDB reads through a shared, read-only map of `data.mdb`, and every
//! page read stays counted in the process's RSS until the map closes. A
//! `reindex` of a team's year from the embedding cache read all 99 MB of
//! the cache and 121 MB of the index it wrote that way, two thirds of its
//! 342 MB peak.
//! Without `MDB_WRITEMAP` (thehook never sets it) LMDB writes with
//! `write(2)`, so the map holds no page of its own: a page let go
//! (`madvise(MADV_DONTNEED)`) is read again from the page cache, unchanged,
//! the next time LMDB touches it.
//!
//! LMDB gives the map's address only for a fixed map, so it is found in
//! `/proc/self/maps` by the file's device and inode: Linux only. Elsewhere this does
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
        let Ok(meta) = std::fs::metadata(file) else {
            return;
        };
        let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
            return;
        };
        let device = format!(
            "{:02x}:{:02x}",
            libc::major(meta.dev()),
            libc::minor(meta.dev())
        );
        for (start, end) in ranges_of(&maps, &device, meta.ino()) {
            // SAFETY: the range is a shared, read-only map of the file (LMDB
            // without MDB_WRITEMAP), so no data lives only in it: a page let
            // go is read again from the page cache when next touched, by
            // this thread or any other.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
            }
        }
    }

    /// The address ranges of `/proc/self/maps` lines that map the file of
    /// `device` (`major:minor`, hex) and `inode`, read-only and shared
    /// (`r--s`). By device and inode, not by path: a path may hold spaces.
    pub(super) fn ranges_of(maps: &str, device: &str, inode: u64) -> Vec<(usize, usize)> {
        maps.lines()
            .filter_map(|line| {
                // address perms offset dev inode path
                let mut fields = line.split_whitespace();
                let (range, perms) = (fields.next()?, fields.next()?);
                let (line_device, line_inode) = (fields.nth(1)?, fields.next()?);
                let same_file = line_device == device && line_inode.parse() == Ok(inode);
                if !same_file || perms != "r--s" {
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
7f0000000000-7f0000100000 r--s 00000000 fd:01 4242                       /x/My Projects/.thehook/index/data.mdb
7f0000200000-7f0000300000 rw-s 00000000 fd:01 4242                       /x/My Projects/.thehook/index/data.mdb
7f0000400000-7f0000500000 r--s 00000000 fd:01 4343                       /x/cache/embeddings/data.mdb
7f0000600000-7f0000700000 r--s 00000000 fd:02 4242                       /y/data.mdb
7f0000800000-7f0000900000 rw-p 00000000 00:00 0                          [heap]
";
            assert_eq!(
                ranges_of(maps, "fd:01", 4242),
                vec![(0x7f00_0000_0000, 0x7f00_0010_0000)],
                "the file's shared read-only map, its path holding a space"
            );
            assert!(ranges_of(maps, "fd:01", 9999).is_empty());
        }
    }
}
