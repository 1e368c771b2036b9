//! What a session was given already, so no hook gives an item twice: one
//! file per session in ignored state (`.thehook/index/given/<session>.txt`),
//! a line per citation (`path:line`) with when and by which hook:
//! `<RFC 3339>\t<hook>\t<citation>`. Session start records what its block
//! cited; each prompt and each file, what it added. Lines of a record
//! written before the hook and time were kept hold the citation alone.
//! Records of sessions untouched for a week are removed as new ones come;
//! a captured session's lasting record is [`super::kept`].

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::agents::HookPayload;
use crate::error::{IoContext, Result};
use crate::project::{file_stem, Project};

/// A record untouched this long belongs to a session long over.
const KEPT_FOR: Duration = Duration::from_secs(7 * 24 * 3600);

/// What the file hook records beside its lines, so it tells a session about
/// a file once: `file <path>`.
pub(crate) const FILE_MARK: &str = "file ";
/// What the subagent hook records beside its lines: `subagent <type>`.
const SUBAGENT_MARK: &str = "subagent ";
/// The hook field of the line that starts a record over, after the context
/// that held what was given is gone (a compaction, `/clear`): what came
/// before is no longer given, for [`Given::load`]; it stays in the blocks.
const START_OVER: &str = "start-over";
/// Between a session's file name and a subagent's, for the record of what
/// that subagent's own context was given: `<session>.sub.<subagent>.txt`.
const SUBAGENT_FILE: &str = ".sub.";

/// The hook that gave something.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "hook", rename_all = "lowercase")]
pub enum Hook {
    /// The session-start block.
    Start,
    /// What a prompt added.
    Prompt,
    /// What touching `path` added.
    File { path: String },
    /// What a subagent of `agent_type` was given when it started.
    Subagent { agent_type: String },
    /// A line recorded before the hook was (an older thehook).
    Unknown,
}

impl Hook {
    fn field(&self) -> String {
        match self {
            Hook::Start => "start".into(),
            Hook::Prompt => "prompt".into(),
            Hook::File { path } => format!("{FILE_MARK}{path}"),
            Hook::Subagent { agent_type } => format!("{SUBAGENT_MARK}{agent_type}"),
            Hook::Unknown => "unknown".into(),
        }
    }

    fn parse(field: &str) -> Hook {
        match field {
            "start" => Hook::Start,
            "prompt" => Hook::Prompt,
            _ => {
                if let Some(path) = field.strip_prefix(FILE_MARK) {
                    Hook::File { path: path.into() }
                } else if let Some(agent_type) = field.strip_prefix(SUBAGENT_MARK) {
                    Hook::Subagent {
                        agent_type: agent_type.into(),
                    }
                } else {
                    Hook::Unknown
                }
            }
        }
    }
}

/// What one hook gave at one time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenBlock {
    #[serde(flatten)]
    pub hook: Hook,
    /// RFC 3339; `None` for lines of an older record.
    pub at: Option<String>,
    /// The `path:line` of each line given, in the block's order.
    pub cited: Vec<String>,
}

/// The record of one session.
pub(crate) struct Given {
    path: PathBuf,
}

impl Given {
    /// The record of `session_id` in `project`.
    pub(crate) fn of(project: &Project, session_id: &str) -> Given {
        Given {
            path: folder(project).join(format!("{}.txt", file_stem(session_id))),
        }
    }

    /// The record of what the subagent `subagent` (its id, else its type)
    /// of session `session_id` was given: its context is its own, so what
    /// the session's main thread was given is not in it.
    pub(crate) fn of_subagent(project: &Project, session_id: &str, subagent: &str) -> Given {
        let name = format!(
            "{}{SUBAGENT_FILE}{}.txt",
            file_stem(session_id),
            file_stem(subagent)
        );
        Given {
            path: folder(project).join(name),
        }
    }

    /// The record of the context a hook payload comes from: its subagent's
    /// when it names one, else its session's; `None` without a session id.
    pub(crate) fn of_payload(project: &Project, payload: &HookPayload) -> Option<Given> {
        let session = payload.session_id.as_deref()?;
        Some(match payload.subagent.as_deref() {
            Some(subagent) => Given::of_subagent(project, session, subagent),
            None => Given::of(project, session),
        })
    }

    /// The citations given since the record last started over, and a
    /// `file <path>` mark for each file the file hook spoke of since (none
    /// for a session never seen).
    pub(crate) fn load(&self) -> HashSet<String> {
        let mut given = HashSet::new();
        for line in self.lines() {
            let (hook, cited) = match line.split('\t').collect::<Vec<_>>()[..] {
                [_, START_OVER, _] => {
                    given.clear();
                    continue;
                }
                [_, hook, cited] => (Hook::parse(hook), cited),
                _ => (Hook::Unknown, line.as_str()),
            };
            if let Hook::File { path } = hook {
                given.insert(format!("{FILE_MARK}{path}"));
            }
            given.insert(cited.to_string());
        }
        given
    }

    /// The citations given to the subagents of this record's session (the
    /// session's record, not a subagent's), each in its own context.
    pub(crate) fn given_to_subagents(&self) -> HashSet<String> {
        self.subagent_records()
            .into_iter()
            .flat_map(|record| record.load())
            .collect()
    }

    /// The records of this session's subagents, by file name.
    fn subagent_records(&self) -> Vec<Given> {
        let Some(stem) = self.path.file_stem().and_then(|s| s.to_str()) else {
            return Vec::new();
        };
        let prefix = format!("{stem}{SUBAGENT_FILE}");
        let dir = self.path.parent().expect("the record has a folder");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix))
            })
            .collect();
        paths.sort();
        paths.into_iter().map(|path| Given { path }).collect()
    }

    /// Starts the record over (`why`: the session-start source that lost
    /// the context): what was given before may be given again.
    pub(crate) fn start_over(&self, why: &str) -> Result<()> {
        if !self.path.exists() {
            return Ok(());
        }
        let at = jiff::Timestamp::now().to_string();
        let line = format!("{at}\t{START_OVER}\t{}\n", one_line(why));
        crate::append::append_whole(&self.path, line.as_bytes()).at("cannot write", &self.path)
    }

    /// What each hook gave this session, its subagents included, in the
    /// order given (the subagents' blocks after the main thread's of the
    /// same time).
    pub(crate) fn blocks_with_subagents(&self) -> Vec<GivenBlock> {
        let mut blocks = self.blocks();
        for record in self.subagent_records() {
            blocks.extend(record.blocks());
        }
        // Stable: blocks of one time keep the main thread's first.
        blocks.sort_by(|a, b| a.at.cmp(&b.at));
        blocks
    }

    /// What each hook gave, in the order given; lines of one hook at one
    /// time form one block.
    pub(crate) fn blocks(&self) -> Vec<GivenBlock> {
        let mut blocks: Vec<GivenBlock> = Vec::new();
        for line in self.lines() {
            let (hook, at, cited) = match line.split('\t').collect::<Vec<_>>()[..] {
                [_, START_OVER, _] => continue,
                [at, hook, cited] => (Hook::parse(hook), Some(at.to_string()), cited),
                // An older record's file marks are not lines given.
                _ if line.starts_with(FILE_MARK) => continue,
                _ => (Hook::Unknown, None, line.as_str()),
            };
            match blocks.last_mut() {
                Some(last) if last.hook == hook && last.at == at => last.cited.push(cited.into()),
                _ => blocks.push(GivenBlock {
                    hook,
                    at,
                    cited: vec![cited.into()],
                }),
            }
        }
        blocks
    }

    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.path)
            .map(|text| text.lines().map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// Adds what `hook` gave now to the record. Appends, so two hooks of one
    /// session writing at once both land.
    pub(crate) fn add(&self, hook: &Hook, cited: &[&str]) -> Result<()> {
        if cited.is_empty() {
            return Ok(());
        }
        let dir = self.path.parent().expect("the record has a folder");
        // A session's first record is the time to look for records long over
        // (not every prompt: the folder holds one file per session).
        let first = !self.path.exists();
        std::fs::create_dir_all(dir).at("cannot create", dir)?;
        let at = jiff::Timestamp::now().to_string();
        let field = hook.field();
        let text: String = cited
            .iter()
            .map(|c| format!("{at}\t{field}\t{}\n", one_line(c)))
            .collect();
        crate::append::append_whole(&self.path, text.as_bytes()).at("cannot write", &self.path)?;
        if first {
            prune(dir);
        }
        Ok(())
    }

    /// [`Given::add`] for a hook, which gives its context anyway: the record
    /// is the hook's own, not memory. What failed, for the hook's log line
    /// (led by "; ", empty when nothing did).
    pub(crate) fn record(&self, hook: &Hook, cited: &[&str]) -> String {
        match self.add(hook, cited) {
            Ok(()) => String::new(),
            Err(e) => format!("; could not record what was given: {e}"),
        }
    }
}

/// A citation on one line of the record (a path may hold a tab or newline).
fn one_line(cited: &str) -> String {
    cited.replace(['\t', '\n', '\r'], " ")
}

fn folder(project: &Project) -> PathBuf {
    project.index_dir().join("given")
}

/// Removes the records of sessions long over.
fn prune(dir: &std::path::Path) {
    let now = SystemTime::now();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > KEPT_FOR));
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_given_is_remembered_per_session() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let a = Given::of(&project, "session/a");
        assert!(a.load().is_empty());
        a.add(&Hook::Start, &[".thehook/sessions/x.md:7"]).unwrap();
        a.add(&Hook::Prompt, &[".thehook/knowledge/notes.md:3"])
            .unwrap();
        let b = Given::of(&project, "session-b");
        assert!(b.load().is_empty(), "another session was given nothing");
        assert_eq!(
            a.load(),
            HashSet::from([
                ".thehook/sessions/x.md:7".to_string(),
                ".thehook/knowledge/notes.md:3".to_string()
            ])
        );
        // The id never walks out of the folder.
        assert!(dir
            .path()
            .join(".thehook/index/given/session_a.txt")
            .is_file());
    }

    #[test]
    fn blocks_say_which_hook_gave_what_and_when() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let given = Given::of(&project, "s");
        given.add(&Hook::Start, &["a.md:1", "b.md:2"]).unwrap();
        let file = Hook::File {
            path: "src/x.rs".into(),
        };
        given.add(&file, &["c.md:3"]).unwrap();
        let blocks = given.blocks();
        let hooks: Vec<_> = blocks.iter().map(|b| (&b.hook, b.cited.len())).collect();
        assert_eq!(hooks, [(&Hook::Start, 2), (&file, 1)]);
        assert!(blocks.iter().all(|b| b
            .at
            .as_deref()
            .is_some_and(|t| t.parse::<jiff::Timestamp>().is_ok())));
        assert!(
            given.load().contains("file src/x.rs"),
            "the file hook tells of a file once"
        );
    }

    #[test]
    fn a_record_started_over_gives_again_and_keeps_its_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let given = Given::of(&project, "s");
        given.add(&Hook::Prompt, &["a.md:1"]).unwrap();
        let file = Hook::File {
            path: "src/x.rs".into(),
        };
        given.add(&file, &["b.md:2"]).unwrap();
        given.start_over("compact").unwrap();
        assert!(
            given.load().is_empty(),
            "nothing is given in the new context"
        );
        given.add(&Hook::Start, &["c.md:3"]).unwrap();
        assert_eq!(given.load(), HashSet::from(["c.md:3".to_string()]));
        // What the session was given, for the page and the used marking,
        // and the files it worked on, still read whole.
        let hooks: Vec<Hook> = given.blocks().into_iter().map(|b| b.hook).collect();
        assert_eq!(hooks, [Hook::Prompt, file, Hook::Start]);
        // A session never seen has nothing to start over.
        Given::of(&project, "new").start_over("clear").unwrap();
        assert!(!folder(&project).join("new.txt").exists());
    }

    #[test]
    fn each_subagent_has_a_record_of_its_own_read_with_its_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let main = Given::of(&project, "s1");
        main.add(&Hook::Start, &["a.md:1"]).unwrap();
        let explore = Hook::Subagent {
            agent_type: "Explore".into(),
        };
        let first = Given::of_subagent(&project, "s1", "agent/1");
        first.add(&explore, &["b.md:2"]).unwrap();
        Given::of_subagent(&project, "s1", "agent-2")
            .add(&explore, &["c.md:3"])
            .unwrap();
        Given::of_subagent(&project, "s10", "agent-3")
            .add(&explore, &["d.md:4"])
            .unwrap();
        // Its own context: not the main thread's, not a sibling's.
        assert_eq!(first.load(), HashSet::from(["b.md:2".to_string()]));
        assert_eq!(main.load(), HashSet::from(["a.md:1".to_string()]));
        // The session's: every subagent of it, not another session's.
        assert_eq!(
            main.given_to_subagents(),
            HashSet::from(["b.md:2".to_string(), "c.md:3".to_string()])
        );
        let cited: Vec<String> = main
            .blocks_with_subagents()
            .into_iter()
            .flat_map(|b| b.cited)
            .collect();
        assert_eq!(cited, ["a.md:1", "b.md:2", "c.md:3"]);
    }

    #[test]
    fn an_older_record_of_bare_citations_still_reads() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let given = Given::of(&project, "old-style");
        std::fs::create_dir_all(folder(&project)).unwrap();
        std::fs::write(&given.path, "a.md:1\nfile src/x.rs\nb.md:2\n").unwrap();
        assert!(given.load().contains("file src/x.rs"));
        let blocks = given.blocks();
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].hook, Hook::Unknown);
        assert_eq!(blocks[0].cited, ["a.md:1", "b.md:2"]);
    }

    #[test]
    fn a_new_sessions_first_record_removes_those_untouched_for_a_week() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let (old, recent) = (Given::of(&project, "old"), Given::of(&project, "recent"));
        old.add(&Hook::Start, &["a.md:1"]).unwrap();
        recent.add(&Hook::Start, &["b.md:1"]).unwrap();
        let eight_days = SystemTime::now() - Duration::from_secs(8 * 24 * 3600);
        std::fs::File::options()
            .write(true)
            .open(&old.path)
            .unwrap()
            .set_modified(eight_days)
            .unwrap();
        // Another prompt of a known session looks at nothing else.
        recent.add(&Hook::Prompt, &["c.md:1"]).unwrap();
        assert!(old.path.exists());
        Given::of(&project, "new")
            .add(&Hook::Start, &["d.md:1"])
            .unwrap();
        assert!(!old.path.exists(), "a week old: removed");
        assert_eq!(recent.load().len(), 2, "recent records stay");
    }
}
