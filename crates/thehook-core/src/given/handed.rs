//! The tasks a live session hands its subagents, for the subagent hook to
//! answer each one on its own task: one file per session in ignored state
//! (`.thehook/index/given/<session>.tasks`, removed with the session's
//! record a week after its last use), a JSON line per event.
//!
//! Only Claude Code says a subagent's task, in the tool call that starts
//! it (`Agent`: `prompt`, `subagent_type`), before the subagent's own
//! start names only its type; so the call's task is kept here ("handed")
//! and claimed by the first subagent of that type to start. Codex and
//! Copilot CLI say no task at all: their subagents get the session's latest
//! prompt, which the prompt hook keeps here too.

use std::collections::HashSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::agents::HandedTask;
use crate::error::{IoContext, Result};
use crate::project::{file_stem, Project};
use crate::text::clip_chars;

/// Characters kept of a task: as much as the prompt hook searches with.
const MAX_TASK_CHARS: usize = 2_000;

/// One event of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Event {
    /// A tool call handed a subagent of `agent_type` this task.
    Handed {
        agent_type: Option<String>,
        task: String,
    },
    /// The person typed this prompt.
    Prompt { task: String },
    /// The subagent `by` took the task of event number `event` (0-based).
    Claimed { event: usize, by: String },
}

/// A subagent's task, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Task {
    pub(crate) text: String,
    /// Handed to it by the tool call that started it; else the session's
    /// latest prompt.
    pub(crate) handed: bool,
}

/// The tasks of one session.
pub(crate) struct Handed {
    path: PathBuf,
}

impl Handed {
    pub(crate) fn of(project: &Project, session_id: &str) -> Handed {
        Handed {
            path: project
                .index_dir()
                .join("given")
                .join(format!("{}.tasks", file_stem(session_id))),
        }
    }

    /// Keeps the task a tool call hands a subagent.
    pub(crate) fn hand(&self, handed: &HandedTask) -> Result<()> {
        self.append(&Event::Handed {
            agent_type: handed.agent_type.clone(),
            task: clip_chars(&handed.task, MAX_TASK_CHARS),
        })
    }

    /// Keeps the prompt the person typed, the task of a subagent no tool
    /// call handed one.
    pub(crate) fn prompted(&self, prompt: &str) -> Result<()> {
        self.append(&Event::Prompt {
            task: clip_chars(prompt, MAX_TASK_CHARS),
        })
    }

    /// The task of the subagent `by`, of `agent_type`, starting now: the
    /// oldest task handed to a subagent of its type (or of none said) that
    /// no other took, which it takes; else the latest prompt.
    pub(crate) fn claim(&self, agent_type: Option<&str>, by: &str) -> Result<Option<Task>> {
        let events = self.events();
        let claimed: HashSet<usize> = events
            .iter()
            .filter_map(|e| match e {
                Event::Claimed { event, .. } => Some(*event),
                _ => None,
            })
            .collect();
        let same_type = |t: &Option<String>| match (t.as_deref(), agent_type) {
            (Some(t), Some(a)) => t.eq_ignore_ascii_case(a),
            _ => true,
        };
        let handed = events.iter().enumerate().find_map(|(n, e)| match e {
            Event::Handed { agent_type, task }
                if !claimed.contains(&n) && same_type(agent_type) =>
            {
                Some((n, task.clone()))
            }
            _ => None,
        });
        if let Some((event, text)) = handed {
            self.append(&Event::Claimed {
                event,
                by: by.to_string(),
            })?;
            return Ok(Some(Task { text, handed: true }));
        }
        Ok(events.iter().rev().find_map(|e| match e {
            Event::Prompt { task } => Some(Task {
                text: task.clone(),
                handed: false,
            }),
            _ => None,
        }))
    }

    /// The events in order; a line that does not read (cut by a full disk)
    /// is passed over.
    fn events(&self) -> Vec<Event> {
        std::fs::read_to_string(&self.path)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    fn append(&self, event: &Event) -> Result<()> {
        let dir = self.path.parent().expect("the file has a folder");
        std::fs::create_dir_all(dir).at("cannot create", dir)?;
        let mut line = serde_json::to_string(event).expect("an event serializes");
        line.push('\n');
        crate::append::append_whole(&self.path, line.as_bytes()).at("cannot write", &self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handed(agent_type: Option<&str>, task: &str) -> HandedTask {
        HandedTask {
            agent_type: agent_type.map(str::to_string),
            task: task.to_string(),
        }
    }

    #[test]
    fn each_subagent_takes_the_oldest_task_handed_to_its_type() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = Handed::of(&Project::at(dir.path()), "s1");
        assert_eq!(tasks.claim(Some("Explore"), "a0").unwrap(), None);
        tasks.prompted("fix the flaky login test").unwrap();
        tasks
            .hand(&handed(Some("Explore"), "find where tokens are refreshed"))
            .unwrap();
        tasks
            .hand(&handed(Some("general-purpose"), "rewrite the retry loop"))
            .unwrap();
        tasks
            .hand(&handed(Some("Explore"), "list the callers of refresh()"))
            .unwrap();
        let take = |t: &str, by: &str| tasks.claim(Some(t), by).unwrap().unwrap();
        assert_eq!(take("general-purpose", "a1").text, "rewrite the retry loop");
        assert_eq!(
            take("explore", "a2").text,
            "find where tokens are refreshed"
        );
        assert_eq!(take("Explore", "a3").text, "list the callers of refresh()");
        // Nothing handed is left: the session's latest prompt.
        let fourth = take("Explore", "a4");
        assert_eq!(
            (fourth.text.as_str(), fourth.handed),
            ("fix the flaky login test", false)
        );
        // Another session's tasks are its own.
        let other = Handed::of(&Project::at(dir.path()), "s2");
        assert_eq!(other.claim(Some("Explore"), "b1").unwrap(), None);
    }
}
