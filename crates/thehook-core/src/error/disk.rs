//! A full disk, told as such. A write that finds no room fails with ENOSPC
//! (or EDQUOT, over the user's quota), and LMDB turns its own short write
//! into EIO ("short write, filesystem full?" in its source): both reached
//! users as a bare I/O error, and the index's advice was to delete it and
//! rebuild, which cannot help while the disk is full. Every write path's
//! error goes through [`Error::io`]/[`IoContext::at`](super::IoContext) or
//! an index call ([`Error::when_disk_full`]), which tell it here.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::{Cause, Error, IndexFailure};

/// Below this much room for the user, an EIO from LMDB is taken for a full
/// disk: a batch of its pages is a few MB.
const ROOM_FOR_A_WRITE: u64 = 16 << 20;

/// Whether an I/O error says there is no room: no space left on the device
/// (ENOSPC) or the user's quota is used up (EDQUOT).
pub(crate) fn is_full(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded)
}

/// The advice for a full disk, what it makes of what was there before.
const FREE_SPACE: &str =
    "free space on that disk (or raise your quota), then run the command again";

impl Error {
    /// An I/O error on `path`: [`Error::DiskFull`] when it says there is no
    /// room, [`Error::Io`] otherwise.
    pub(crate) fn io_at(action: &'static str, path: PathBuf, source: std::io::Error) -> Error {
        if is_full(&source) {
            // In plain words: a library may have put its own temporary
            // file's path in the error's text.
            let said = match source.kind() {
                ErrorKind::QuotaExceeded => "your disk quota is used up",
                _ => "no space left on the device",
            };
            return Error::DiskFull {
                what: format!("{action} {}: {said}", path.display()),
                path,
                source: Cause(Box::new(Box::new(source))),
                fix: format!("{FREE_SPACE}; nothing was written there, and what was there before is unchanged").into(),
            };
        }
        Error::Io {
            action,
            path,
            source,
        }
    }

    /// This error of the index (or the embedding cache) in `dir`, told as a
    /// full disk when it is one: an I/O error that says so, or LMDB's EIO
    /// while the disk has next to no room left.
    pub(crate) fn when_disk_full(self, dir: &Path) -> Error {
        let io = match &self {
            Error::Index {
                source: IndexFailure::Lmdb(heed::Error::Io(io)),
                ..
            } => io,
            Error::Index {
                source: IndexFailure::Vectors(arroy::Error::Io(io)),
                ..
            } => io,
            Error::Index {
                source: IndexFailure::Vectors(arroy::Error::Heed(heed::Error::Io(io))),
                ..
            } => io,
            _ => return self,
        };
        let short_write = io.raw_os_error() == Some(EIO)
            && available(dir).is_some_and(|room| room < ROOM_FOR_A_WRITE);
        if !is_full(io) && !short_write {
            return self;
        }
        let Error::Index { source, .. } = self else {
            unreachable!("matched above")
        };
        Error::DiskFull {
            what: format!("LMDB could not write to {} ({source})", dir.display()),
            path: dir.to_path_buf(),
            source: Cause(Box::new(Box::new(source))),
            fix: format!(
                "{FREE_SPACE}; nothing needs deleting: the memory's markdown is \
                 unchanged, and the index catches up with it on the next command"
            )
            .into(),
        }
    }
}

/// EIO on Linux and macOS. Windows has no such code (5 is its "access
/// denied"), but there [`available`] is unknown, so only an error that
/// says the disk is full counts.
const EIO: i32 = 5;

/// Bytes the user may still write on the file system holding `path`.
#[cfg(unix)]
fn available(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a NUL-terminated path and `stat` a buffer of the
    // right type, which statvfs fills when it returns 0.
    let stat = unsafe {
        if libc::statvfs(c.as_ptr(), stat.as_mut_ptr()) != 0 {
            return None;
        }
        stat.assume_init()
    };
    // `fsblkcnt_t` and the block size are 64-bit on Linux, 32-bit on macOS.
    #[allow(clippy::useless_conversion)]
    let room = u64::from(stat.f_bavail).saturating_mul(u64::from(stat.f_frsize));
    Some(room)
}

/// Unknown elsewhere: only an error that says so is a full disk there.
#[cfg(not(unix))]
fn available(_path: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_space_and_no_quota_are_a_full_disk_that_names_the_path() {
        for errno in [28, 122] {
            let e = Error::io_at(
                "cannot write",
                PathBuf::from(".thehook/failed/s.jsonl"),
                std::io::Error::from_raw_os_error(errno),
            );
            let text = e.to_string();
            assert_eq!(e.code().as_str(), "THEHOOK_DISK_FULL", "{text}");
            assert!(
                text.starts_with("the disk holding .thehook/failed/s.jsonl is full"),
                "{text}"
            );
            assert!(text.contains("free space on that disk"), "{text}");
        }
        let other = Error::io_at(
            "cannot write",
            PathBuf::from("x"),
            std::io::Error::from_raw_os_error(13),
        );
        assert_eq!(other.code().as_str(), "THEHOOK_IO");
    }

    #[test]
    fn an_index_error_of_no_space_is_a_full_disk_not_a_rebuild() {
        let lmdb: Error = heed::Error::Io(std::io::Error::from_raw_os_error(28)).into();
        assert!(lmdb.to_string().contains("delete .thehook/index/"));
        let told = lmdb.when_disk_full(Path::new("."));
        let text = told.to_string();
        assert_eq!(told.code().as_str(), "THEHOOK_DISK_FULL", "{text}");
        assert!(!text.contains("delete"), "{text}");
        assert!(text.contains("nothing needs deleting"), "{text}");
        // EIO with room on the disk stays an index failure.
        let eio: Error = heed::Error::Io(std::io::Error::from_raw_os_error(5)).into();
        let kept = eio.when_disk_full(Path::new("."));
        assert_eq!(kept.code().as_str(), "THEHOOK_INDEX");
    }
}
