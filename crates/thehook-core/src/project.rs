//! Where a project's memory lives on disk.

use std::path::{Path, PathBuf};

use crate::error::{Error, IoContext, Result};

/// The name of the folder that holds a project's memory.
pub const THEHOOK_DIR: &str = ".thehook";
/// The project-relative path every session file's starts with.
pub const SESSIONS_PREFIX: &str = ".thehook/sessions/";
/// The configuration, relative to the project's root.
pub const CONFIG_FILE: &str = ".thehook/config.yaml";
/// The project-relative path every knowledge file's starts with.
pub const KNOWLEDGE_PREFIX: &str = ".thehook/knowledge/";

/// The git folder of the work tree holding `root` (its own `.git`, else the
/// nearest ancestor's), found without starting git: a `.git` file (a linked
/// worktree, a submodule) names the real folder.
pub(crate) fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot_git = root
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|g| g.exists())?;
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let named = text.trim().strip_prefix("gitdir:")?.trim();
    Some(dot_git.parent()?.join(named))
}

/// The git folder a clone's worktrees share: [`git_dir`], or the folder its
/// `commondir` names in a linked worktree.
pub(crate) fn git_common_dir(root: &Path) -> Option<PathBuf> {
    let git = git_dir(root)?;
    Some(match std::fs::read_to_string(git.join("commondir")) {
        Ok(common) => git.join(common.trim()),
        Err(_) => git,
    })
}

/// The paths of one project. Cheap to build; touches the disk only in
/// [`Project::discover`] and [`Project::check_layout`].
#[derive(Debug, Clone)]
pub struct Project {
    root: PathBuf,
    /// `.thehook/` was found already ([`Project::find_layout`]): the
    /// checks after the first (opening memory) need not look again.
    layout_found: bool,
}

/// Two handles on the same root are the same project, whatever each has
/// checked.
impl PartialEq for Project {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}
impl Eq for Project {}

impl Project {
    /// The project rooted exactly at `root` (its `.thehook/` may not exist yet).
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Project {
            root: root.into(),
            layout_found: false,
        }
    }

    /// The nearest ancestor of `start` (itself included) that holds a
    /// `.thehook/`, else the enclosing git work tree, else `start` itself. This
    /// lets `thehook recall` work from any subfolder, like git does.
    pub fn discover(start: &Path) -> Self {
        let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
        if let Some(found) = start.ancestors().find(|a| a.join(THEHOOK_DIR).exists()) {
            return Project::at(found);
        }
        if let Some(git) = start.ancestors().find(|a| a.join(".git").exists()) {
            return Project::at(git);
        }
        Project::at(start)
    }

    /// The project `thehook init` sets up from `start`: the enclosing git
    /// work tree, else `start` itself, never a parent that merely has memory
    /// (a stray `~/.thehook` must not capture every repository below it).
    pub fn for_init(start: &Path) -> Self {
        let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
        match start.ancestors().find(|a| a.join(".git").exists()) {
            Some(git) => Project::at(git),
            None => Project::at(start),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn dir(&self) -> PathBuf {
        self.root.join(THEHOOK_DIR)
    }
    pub fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }
    pub fn sessions_dir(&self) -> PathBuf {
        self.dir().join("sessions")
    }
    pub fn knowledge_dir(&self) -> PathBuf {
        self.dir().join("knowledge")
    }
    pub fn index_dir(&self) -> PathBuf {
        self.dir().join("index")
    }
    pub fn logs_dir(&self) -> PathBuf {
        self.dir().join("logs")
    }
    pub fn failed_dir(&self) -> PathBuf {
        self.dir().join("failed")
    }
    pub fn queue_dir(&self) -> PathBuf {
        self.dir().join("queue")
    }

    /// [`Project::check_layout`], remembered when `.thehook/` is found: a
    /// hook checks once, and the memory it opens does not look again.
    pub fn find_layout(&mut self) -> Result<bool> {
        self.layout_found = self.check_layout()?;
        Ok(self.layout_found)
    }

    /// Whether `.thehook/` exists as a folder. A `.thehook` that is a file is
    /// an error that says how to get out of it.
    pub fn check_layout(&self) -> Result<bool> {
        if self.layout_found {
            return Ok(true);
        }
        let dir = self.dir();
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => Ok(true),
            Ok(_) => Err(Error::Layout {
                path: dir,
                problem: "exists but is a file, not a folder".into(),
                source: None,
                fix:
                    "move the file out of the way (thehook keeps its memory in a .thehook/ folder)"
                        .into(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io("cannot inspect", dir, e)),
        }
    }

    /// An exclusive lock that serialises the processes that change this
    /// project's markdown or (re)create its index; released when the returned
    /// file is dropped, and by the OS if the process dies. It lives in the
    /// (git-ignored) index folder, beside but not among LMDB's own files.
    pub fn lock(&self) -> Result<std::fs::File> {
        let path = self.index_dir().join(".lock");
        let file = open_lock_file(&path)?;
        file.lock().at("cannot lock", &path)?;
        Ok(file)
    }

    /// The lock of the detached sync that embeds items waiting for vectors
    /// (`None`: one runs already).
    pub fn try_lock_embedding(&self) -> Result<Option<std::fs::File>> {
        let path = self.index_dir().join(".embedding.lock");
        let file = open_lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e).at("cannot lock", &path),
        }
    }

    /// `path` relative to the project root with `/` separators, as cited in
    /// output (`.thehook/knowledge/notes.md`).
    pub fn relative(&self, path: &Path) -> String {
        slashed(path.strip_prefix(&self.root).unwrap_or(path))
    }
}

/// A session id as a file name: anything but `[A-Za-z0-9._-]` becomes `_`.
pub(crate) fn file_stem(session_id: &str) -> String {
    session_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A relative path with `/` between its parts on every platform, as
/// thehook cites and reports paths (Windows' own `\` would mix with the
/// `/` of names like `commands/recall.md`).
pub fn slashed(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Opens (creating it and its folder) a file used only for `flock`.
pub(crate) fn open_lock_file(path: &Path) -> Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).at("cannot create folder", dir)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .at("cannot open the lock file", path)
}
