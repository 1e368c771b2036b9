//! Faults of the machine, for real: `.thehook/` on a small ext4 file system
//! (a loop device; CI runs as root) made full, and what every write path
//! says then; nothing stored is lost, and all of it is there once space
//! returns.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// A small ext4 file system mounted over a folder, unmounted when dropped.
struct SmallDisk {
    at: PathBuf,
    _image: tempfile::TempDir,
}

impl SmallDisk {
    /// `mb` MB of ext4 mounted at `at`; `None` (said on stderr) where this
    /// process may not mount (not root, no loop device).
    fn mount(at: &Path, mb: u64) -> Option<SmallDisk> {
        let image = tempfile::tempdir().unwrap();
        let file = image.path().join("disk.img");
        std::fs::File::create(&file)
            .unwrap()
            .set_len(mb << 20)
            .unwrap();
        std::fs::create_dir_all(at).unwrap();
        let ran = |cmd: &mut Command| cmd.output().is_ok_and(|o| o.status.success());
        // No blocks reserved for root: the tests run as root.
        let made = ran(Command::new("mkfs.ext4").args(["-q", "-m", "0"]).arg(&file));
        if !made
            || !ran(Command::new("mount")
                .args(["-o", "loop"])
                .arg(&file)
                .arg(at))
        {
            eprintln!("skipped: cannot mount a loop device here (needs root and mkfs.ext4)");
            return None;
        }
        Some(SmallDisk {
            at: at.to_path_buf(),
            _image: image,
        })
    }

    /// Fills the disk but for `room` KB.
    fn fill(&self, room: u64) -> PathBuf {
        let filler = self.at.join("filler");
        let out = Command::new("df")
            .args(["-k", "--output=avail"])
            .arg(&self.at)
            .output()
            .unwrap();
        let avail: u64 = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let size = (avail.saturating_sub(room) * 1024).to_string();
        let status = Command::new("fallocate")
            .args(["-l", &size])
            .arg(&filler)
            .status()
            .unwrap();
        assert!(status.success());
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.at).status();
    }
}

/// The items and session files the index holds, by `status --json`.
fn counts(p: &Project) -> (u64, u64) {
    let status: serde_json::Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    let index = &status["index"];
    (
        index["items"].as_u64().unwrap(),
        index["sessions"].as_u64().unwrap_or_default(),
    )
}

#[test]
fn a_full_disk_is_said_on_every_write_and_nothing_is_lost() {
    let p = Project::empty();
    let Some(disk) = SmallDisk::mount(&p.thehook(), 24) else {
        return;
    };
    let demo = Project::demo();
    for file in walk(&demo.thehook()) {
        let rel = file.strip_prefix(demo.thehook()).unwrap();
        let dest = p.thehook().join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&file, dest).unwrap();
    }
    p.ok(&["reindex"]);
    let (items, _) = counts(&p);
    assert!(items > 20, "{items}");
    let markdown = p.markdown_snapshot();

    // No room at all. A fact: refused, saying why, and no file changed.
    let filler = disk.fill(0);
    let (code, _, err) = p.run(&["remember", "Deploys need two approvals"]);
    assert_ne!(code, 0);
    assert!(err.contains("is full"), "{err}");
    assert_eq!(p.markdown_snapshot(), markdown, "a write half done");
    std::fs::remove_file(filler).unwrap();

    // More to index than the pages an earlier build freed can hold, so the
    // reindex below needs the file to grow however its earlier writes were
    // batched (under load a rebuild of the same items fit in freed pages).
    let notes: String = (0..400)
        .map(|i| format!("- `[note]` Batch job {i} retries twice on a timeout of {i} s\n"))
        .collect();
    std::fs::write(
        p.thehook().join("knowledge/batch-jobs.md"),
        format!("# Batch jobs\n\n{notes}"),
    )
    .unwrap();
    // Room for a small file, not for a batch of the index's pages.
    let filler = disk.fill(40);
    // The index: the disk named, and no advice to delete it.
    let (code, _, err) = p.run(&["reindex"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("is full") && err.contains(".thehook/index"),
        "{err}"
    );
    assert!(!err.contains("delete"), "{err}");

    // A capture: the session file may fit, failed/ cannot take the
    // transcript (27 KB), and nothing claims it was kept. The room is
    // measured again: how much of the 40 KB a failed index write used
    // depends on the pages it asked for.
    std::fs::remove_file(filler).unwrap();
    let filler = disk.fill(12);
    let transcript = repo_root().join(
        "crates/thehook-core/tests/fixtures/transcripts/claude-code/d-kimuson-1af7fc5e.jsonl",
    );
    let out = p
        .cmd(&["capture", "--transcript", transcript.to_str().unwrap()])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("is full"), "{said}");
    assert!(!said.contains("waits in .thehook/failed/"), "{said}");
    let failed = p.thehook().join("failed");
    // All or none: a job's `.json` and its `.reason` together, or neither.
    let kept: Vec<PathBuf> = walk(&failed);
    for file in &kept {
        let pair = match file.extension().and_then(|e| e.to_str()) {
            Some("json") => file.with_extension("reason"),
            Some("reason") => file.with_extension("json"),
            _ => continue,
        };
        assert!(
            pair.exists(),
            "{} without {}: {kept:?}",
            file.display(),
            pair.display()
        );
    }

    // Hooks fail open and still give what memory holds.
    let injected = p.injected();
    assert!(injected.contains("Conventions"), "{injected}");

    // Space again: everything is there, and the capture is kept as it should.
    std::fs::remove_file(filler).unwrap();
    p.ok(&["reindex"]);
    let (after, _) = counts(&p);
    assert!(after >= items, "{after} items, {items} before");
    for (path, bytes) in &markdown {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "{}", path.display());
    }
    let out = p
        .cmd(&["capture", "--transcript", transcript.to_str().unwrap()])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("waits in .thehook/failed/"), "{said}");
    let sessions = p.ok(&["sessions", "--json"]);
    assert!(sessions.contains("1af7fc5e"), "{sessions}");
    p.ok(&["remember", "Deploys need two approvals"]);
    assert!(p.ok(&["recall", "approvals"]).contains("two approvals"));
}
