//! Appends that leave no partial line. The logs, the queue's `.skipped`
//! list and the given record grow by appending lines; a write cut short (a
//! full disk) would leave half a line that the next append glues onto. A
//! failed append is taken back to the length the file had.

use std::io::Write;
use std::path::Path;

/// Appends `text` (whole lines) to `path`, creating it; on failure the
/// file is cut back to where it was. Two processes appending at once both
/// land (O_APPEND); one taking its failed write back on a full disk may cut
/// the other's line written in between, which failed too on that disk.
pub(crate) fn append_whole(path: &Path, text: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let before = file.metadata()?.len();
    if let Err(e) = file.write_all(text) {
        let _ = file.set_len(before);
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_appended_and_the_file_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        append_whole(&path, b"one\n").unwrap();
        append_whole(&path, b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    }

    /// On Linux, `/dev/full` fails every write with ENOSPC.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_write_with_no_room_is_an_error_that_says_so() {
        let e = append_whole(Path::new("/dev/full"), b"line\n").unwrap_err();
        assert!(crate::error::is_full(&e), "{e}");
    }
}
