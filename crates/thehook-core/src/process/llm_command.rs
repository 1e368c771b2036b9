//! An LLM CLI's command line as thehook runs it: each agent's module builds
//! its own (`agents/<agent>/llm.rs`), `capture/llm.rs` runs it.

use std::path::PathBuf;

/// A resolved LLM command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// What to call it in logs and messages (`claude`, `command`).
    pub label: String,
    /// How its answer is printed.
    pub output: Output,
    /// The model it was told to run, if thehook chose one.
    pub model: Option<String>,
    /// Variables set for it besides `THEHOOK_CHILD`.
    pub env: Vec<(String, String)>,
    /// Where it runs, when not in the project (Gemini CLI records a chat
    /// for the folder it runs in, and the sweep must not find it).
    pub cwd: Option<PathBuf>,
    /// Files it reads, written just before it runs (when they differ).
    pub setup: Vec<(PathBuf, &'static str)>,
    /// How it gets the prompt.
    pub prompt_in: PromptIn,
    /// A file it writes its usage to (Copilot CLI's `--usage-output-file`).
    pub usage_file: Option<PathBuf>,
}

/// Where a CLI reads the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptIn {
    Stdin,
    /// As its last argument: for a CLI that ignores piped stdin.
    LastArgument,
}

impl LlmCommand {
    /// `program args...`, answering in plain text, run in the project.
    pub fn new(program: PathBuf, args: Vec<String>, label: &str) -> LlmCommand {
        LlmCommand {
            program,
            args,
            label: label.to_string(),
            output: Output::Text,
            model: None,
            env: Vec::new(),
            cwd: None,
            setup: Vec::new(),
            prompt_in: PromptIn::Stdin,
            usage_file: None,
        }
    }
}

/// How a CLI prints its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The answer's text, as is.
    Text,
    /// One JSON result, as `claude -p` and `cursor-agent -p` print it with
    /// `--output-format json`: `{"result", "is_error", "usage", ...}`.
    ResultJson,
    /// One event a line, as `opencode run --format json` prints them: the
    /// answer in `text` events, tokens and cost in `step_finish` events.
    EventLines,
}
