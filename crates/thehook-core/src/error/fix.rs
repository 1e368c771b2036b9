//! The advice of an error: words, and the steps in them named the way the
//! front end the user is in names them.

use std::borrow::Cow;
use std::fmt;

/// Something the user can do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Start a project's memory.
    Init,
    /// Rebuild the index from the markdown.
    Reindex,
    /// Merge sessions into `knowledge/` through the LLM.
    Consolidate,
    /// Check the install.
    Doctor,
    /// Search memory (to find an item's id).
    Recall,
    /// Add a fact by hand.
    Remember,
    /// List past sessions (to find a session's id).
    Sessions,
    /// Read a past session.
    Read,
    /// Review what memory withholds or holds stale (to find an id).
    Review,
    /// Redo the captures that failed.
    RetryCaptures,
    /// Run in another project folder.
    ProjectDir,
}

/// Whose words name the steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Words {
    /// The `thehook` command line (and the hook logs it writes).
    #[default]
    Cli,
    /// The Node API: functions and their options.
    Node,
    /// The MCP server's tools.
    Mcp,
}

impl Step {
    /// How `words` name this step.
    pub fn named(self, words: Words) -> &'static str {
        use Step::*;
        use Words::*;
        match (self, words) {
            (Init, Cli | Mcp) => "run `thehook init`",
            (Init, Node) => "call `init()`",
            (Reindex, Cli | Mcp) => "run `thehook reindex`",
            (Reindex, Node) => "call `reindex()`",
            (Consolidate, Cli | Mcp) => "run `thehook consolidate`",
            (Consolidate, Node) => "call `consolidate()`",
            (Doctor, Cli | Mcp) => "run `thehook doctor`",
            (Doctor, Node) => "run `npx thehook doctor`",
            (Recall, Cli) => "run `thehook recall \"<words of the item>\"`",
            (Recall, Node) => "call `recall(\"<words of the item>\")`",
            (Recall, Mcp) => "use the `recall` tool",
            (Remember, Cli) => "run `thehook remember \"<fact>\"`",
            (Remember, Node) => "call `remember(\"<fact>\")`",
            (Remember, Mcp) => "use the `remember` tool",
            (Sessions, Cli) => "run `thehook sessions`",
            (Sessions, Node) => "run `npx thehook sessions`",
            (Sessions, Mcp) => "use the `sessions` tool",
            (Read, Cli) => "run `thehook read <id>`",
            (Read, Node) => "run `npx thehook read <id>`",
            (Read, Mcp) => "use the `read` tool",
            (Review, Cli | Mcp) => "run `thehook review`",
            (Review, Node) => "run `npx thehook review`",
            (RetryCaptures, Cli | Mcp) => "run `thehook capture --retry`",
            (RetryCaptures, Node) => "call `capture({ retry: true })`",
            (ProjectDir, Cli | Mcp) => "run thehook from that project (`-C DIR`)",
            (ProjectDir, Node) => "pass that project as the `projectDir` option",
        }
    }
}

/// One piece of advice. Plain text converts into it; [`fix!`] mixes text and
/// [`Step`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    parts: Vec<Part>,
    pub(crate) words: Words,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(Cow<'static, str>),
    Step(Step),
}

impl Fix {
    pub(crate) fn from_parts(parts: Vec<FixPart>) -> Fix {
        Fix {
            parts: parts.into_iter().map(|p| p.0).collect(),
            words: Words::default(),
        }
    }
}

/// A piece of a [`Fix`] under construction (text or a step).
pub(crate) struct FixPart(Part);

impl From<&'static str> for FixPart {
    fn from(s: &'static str) -> FixPart {
        FixPart(Part::Text(Cow::Borrowed(s)))
    }
}

impl From<String> for FixPart {
    fn from(s: String) -> FixPart {
        FixPart(Part::Text(Cow::Owned(s)))
    }
}

impl From<Step> for FixPart {
    fn from(step: Step) -> FixPart {
        FixPart(Part::Step(step))
    }
}

impl From<&'static str> for Fix {
    fn from(s: &'static str) -> Fix {
        Fix::from_parts(vec![s.into()])
    }
}

impl From<String> for Fix {
    fn from(s: String) -> Fix {
        Fix::from_parts(vec![s.into()])
    }
}

impl From<Step> for Fix {
    fn from(step: Step) -> Fix {
        Fix::from_parts(vec![step.into()])
    }
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                Part::Text(text) => f.write_str(text)?,
                Part::Step(step) => f.write_str(step.named(self.words))?,
            }
        }
        Ok(())
    }
}

/// Serialized as it reads on the command line (`status --json`).
impl serde::Serialize for Fix {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Advice from pieces of text and [`Step`]s:
/// `fix!("delete the file and ", Step::Reindex)`.
macro_rules! fix {
    ($($part:expr),+ $(,)?) => {
        $crate::error::Fix::from_parts(vec![$($crate::error::fix::FixPart::from($part)),+])
    };
}
pub(crate) use fix;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn each_front_end_names_the_step_its_own_way() {
        let cli = Error::no_memory("/p").to_string();
        assert!(
            cli.contains("run `thehook init` there, or run `thehook remember"),
            "{cli}"
        );
        let node = Error::no_memory("/p").in_words_of(Words::Node).to_string();
        assert!(node.contains("call `init()` there"), "{node}");
        assert!(node.contains("call `remember(\"<fact>\")`"), "{node}");
        assert!(!node.contains("thehook init"), "{node}");
    }

    #[test]
    fn node_never_names_a_cli_command_for_a_step_it_has_a_function_for() {
        use Step::*;
        for step in [Init, Reindex, Consolidate, Recall, Remember, RetryCaptures] {
            assert!(!step.named(Words::Node).contains("thehook"), "{step:?}");
        }
    }
}
