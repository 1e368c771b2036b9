//! The condensed form of a transcript: what a person asked, what the agent
//! concluded, the tools it used with their key argument, the files it
//! touched, the errors it hit and the outcome of its test runs, one line
//! each. Thinking, injected context, base64, tool output and read-only
//! tools (reads, searches, listings) are left out; what the agent said on
//! its way is clipped short, what it concluded at the end of a turn less
//! so. This is what a reader (or the capture LLM) needs, in a fraction of
//! the tokens. Each line has a [`Weight`], so that a transcript too long for
//! the LLM loses its least useful lines first ([`Condensed::fit`]).

use std::collections::BTreeSet;
use std::fmt::Write;

use serde_json::Value;

use super::{Block, Entry, Role, ToolCall, ToolRole, Transcript};
use crate::text::clip_chars as clip;

/// How much of each piece to keep.
#[derive(Debug, Clone)]
pub struct CondenseOptions {
    /// Characters kept of what the person asked.
    pub max_ask: usize,
    /// Characters kept of a turn's last reply, and of events.
    pub max_text: usize,
    /// Characters kept of what the agent said on its way (a reply that
    /// tools followed within the same turn).
    pub max_narration: usize,
    /// Characters kept of a tool's key argument or of an error.
    pub max_detail: usize,
    /// Include subagents' turns (indented).
    pub sidechains: bool,
}

impl Default for CondenseOptions {
    fn default() -> Self {
        CondenseOptions {
            max_ask: 1500,
            max_text: 1600,
            max_narration: 200,
            max_detail: 160,
            sidechains: true,
        }
    }
}

/// How much a line matters, least first: when a transcript is too long,
/// lines go in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Weight {
    /// What the agent said on its way.
    Narration,
    /// A tool call with nothing to show for it.
    Tool,
    /// What the agent concluded at the end of a turn; a subagent's task.
    Conclusion,
    /// What was asked, files changed, errors, test outcomes, the header.
    Fact,
}

/// A condensed transcript, line by line.
#[derive(Debug, Clone, Default)]
pub struct Condensed {
    pub lines: Vec<(Weight, String)>,
}

impl Condensed {
    fn push(&mut self, weight: Weight, line: String) {
        self.lines.push((weight, line));
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        for (_, line) in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// The text in at most `max` bytes. Lines go least weight first, and
    /// within a weight from the middle of the session outwards (its start
    /// says what was asked, its end what came of it); a gap says how many
    /// lines it holds. Facts alone too long keep their start and end.
    pub fn fit(&self, max: usize) -> String {
        let size = |kept: &[bool]| -> usize {
            self.lines
                .iter()
                .zip(kept)
                .filter(|(_, k)| **k)
                .map(|((_, l), _)| l.len() + 1)
                .sum()
        };
        let mut kept = vec![true; self.lines.len()];
        let mut total = size(&kept);
        let middle = self.lines.len() / 2;
        for weight in [Weight::Narration, Weight::Tool, Weight::Conclusion] {
            let mut order: Vec<usize> = (0..self.lines.len())
                .filter(|i| self.lines[*i].0 == weight)
                .collect();
            order.sort_by_key(|i| i.abs_diff(middle));
            for i in order {
                if total <= max {
                    break;
                }
                kept[i] = false;
                total -= self.lines[i].1.len() + 1;
                // A gap's marker line: one more, or two merged into one.
                let dropped = |j: Option<usize>| j.and_then(|j| kept.get(j)) == Some(&false);
                match (dropped(i.checked_sub(1)), dropped(Some(i + 1))) {
                    (false, false) => total += GAP_MARKER,
                    (true, true) => total -= GAP_MARKER,
                    _ => {}
                }
            }
        }
        let mut out = String::new();
        let mut gap = 0usize;
        for ((_, line), keep) in self.lines.iter().zip(&kept) {
            if !keep {
                gap += 1;
                continue;
            }
            if gap > 0 {
                let _ = writeln!(out, "[… {gap} line(s) left out …]");
                gap = 0;
            }
            out.push_str(line);
            out.push('\n');
        }
        if gap > 0 {
            let _ = writeln!(out, "[… {gap} line(s) left out …]");
        }
        cut_middle(&out, max)
    }
}

/// The most bytes a `[… N line(s) left out …]` line takes.
const GAP_MARKER: usize = 34;

/// `text` cut to `max` bytes by leaving out its middle, at line ends.
fn cut_middle(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let head_end = floor_line(text, max / 3);
    let tail_start = ceil_line(text, text.len() - (max - max / 3));
    format!(
        "{}[… {} characters of the middle of the session left out …]\n{}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    )
}

fn floor_line(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    s[..at].rfind('\n').map_or(at, |i| i + 1)
}

fn ceil_line(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at += 1;
    }
    s[at..].find('\n').map_or(at, |i| at + i + 1)
}

/// The condensed transcript as text.
pub fn condense(t: &Transcript, o: &CondenseOptions) -> String {
    condense_lines(t, o).text()
}

/// The condensed transcript, each line weighed.
pub fn condense_lines(t: &Transcript, o: &CondenseOptions) -> Condensed {
    let mut out = Condensed::default();
    let mut head: Vec<String> = Vec::new();
    if let Some(f) = t.format {
        head.push(match &t.agent_version {
            Some(v) => format!("{f} {v}"),
            None => f.to_string(),
        });
    }
    head.extend(t.session_id.iter().map(|s| format!("session {s}")));
    head.extend(t.model.iter().cloned());
    head.extend(t.git_branch.iter().map(|b| format!("branch {b}")));
    out.push(Weight::Fact, format!("# {}", head.join(" · ")));
    if let Some(cwd) = &t.cwd {
        out.push(Weight::Fact, format!("cwd: {cwd}"));
    }
    if let (Some(s), Some(e)) = (&t.started, &t.ended) {
        out.push(Weight::Fact, format!("time: {s} .. {e}"));
    }
    if let Some(title) = &t.title {
        out.push(Weight::Fact, format!("title: {}", clip(title, o.max_text)));
    }
    let mut files = BTreeSet::new();
    let mut errors = 0usize;
    write_entries(&mut out, t, o, "", &mut files, &mut errors);
    for sub in t.subagents.iter().filter(|_| o.sidechains) {
        out.push(
            Weight::Conclusion,
            format!(
                "## subagent {}",
                sub.agent_id.as_deref().unwrap_or("(unnamed)")
            ),
        );
        write_entries(&mut out, sub, o, "  ", &mut files, &mut errors);
    }
    if !files.is_empty() {
        let list: Vec<&str> = files.iter().map(String::as_str).collect();
        out.push(Weight::Fact, format!("files changed: {}", list.join(", ")));
    }
    if errors > 0 {
        out.push(Weight::Fact, format!("tool errors: {errors}"));
    }
    out
}

fn write_entries(
    out: &mut Condensed,
    t: &Transcript,
    o: &CondenseOptions,
    indent: &str,
    files: &mut BTreeSet<String>,
    errors: &mut usize,
) {
    let concluding = concluding_entries(t);
    for (i, e) in t.entries.iter().enumerate() {
        if e.sidechain && !o.sidechains {
            continue;
        }
        let indent = if e.sidechain { "  " } else { indent };
        write_entry(out, e, concluding.contains(&i), o, indent, files, errors);
    }
}

/// The entries whose text ends a turn: the last assistant text before the
/// next thing the person says, an event (a hook's feedback, an
/// interruption) or the end.
fn concluding_entries(t: &Transcript) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut last_text: Option<usize> = None;
    let said = |e: &Entry| {
        e.blocks
            .iter()
            .any(|b| matches!(b, Block::Text { text } if !text.trim().is_empty()))
    };
    for (i, e) in t.entries.iter().enumerate() {
        match e.role {
            Role::User | Role::Event if said(e) => out.extend(last_text.take()),
            Role::Assistant if said(e) => last_text = Some(i),
            _ => {}
        }
    }
    out.extend(last_text);
    out
}

fn write_entry(
    out: &mut Condensed,
    e: &Entry,
    concluding: bool,
    o: &CondenseOptions,
    indent: &str,
    files: &mut BTreeSet<String>,
    errors: &mut usize,
) {
    let who = match e.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        // Injected instructions and summaries are the agent's, not the session's.
        Role::Context => return,
        Role::Event => "event",
    };
    let time = e
        .timestamp
        .as_deref()
        .and_then(|t| t.get(11..16))
        .map(|hm| format!(" {hm}"))
        .unwrap_or_default();
    let head = format!("{indent}[{}] {who}{time}:", e.line);
    let text_weight = match e.role {
        Role::User if e.sidechain => Weight::Conclusion,
        Role::User => Weight::Fact,
        Role::Assistant if concluding => Weight::Conclusion,
        Role::Assistant => Weight::Narration,
        _ => Weight::Conclusion,
    };
    let text_max = match (e.role, text_weight) {
        (_, Weight::Narration) => o.max_narration,
        (Role::User, _) => o.max_ask,
        _ => o.max_text,
    };
    for b in &e.blocks {
        let (weight, line) = match b {
            Block::Text { text } => {
                let text = one_line(&strip_base64(text));
                if text.is_empty() {
                    continue;
                }
                (text_weight, clip(&text, text_max))
            }
            Block::Image { .. } => (Weight::Narration, "[image]".to_string()),
            Block::ToolCall(call) => match tool_line(call, o, files, errors) {
                Some(line) => line,
                None => continue,
            },
            Block::ToolResult { result, .. } if result.is_error => {
                *errors += 1;
                (
                    Weight::Fact,
                    format!(
                        "tool error: {}",
                        clip(&first_line(&result.text), o.max_detail)
                    ),
                )
            }
            Block::ToolResult { .. } | Block::Thinking { .. } => continue,
        };
        out.push(weight, format!("{head} {line}"));
    }
}

/// What a session did, read off the transcript without an LLM: the basis
/// of a session file when no LLM answer can be had, and of the facts every
/// session file records (its files).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// What the person asked, in order.
    pub asked: Vec<String>,
    /// Files written, as the transcript names them (often absolute).
    pub files_changed: Vec<String>,
    /// Shell commands that change something, in order, each once: reads
    /// (`git log`, `ls`, `grep`...) tell a later reader nothing.
    pub commands: Vec<String>,
    /// The first telling line of each failed tool call, each once: a bare
    /// `Exit code 1` is not telling, the line after it is.
    pub errors: Vec<String>,
    /// The last test or build run: its command and what its output said.
    pub last_test: Option<(String, String)>,
    /// What the agent said last: where the session ended.
    pub last_said: Option<String>,
}

pub fn facts(t: &Transcript) -> Facts {
    let mut f = Facts::default();
    let mut files = BTreeSet::new();
    for e in t.entries.iter().filter(|e| !e.sidechain) {
        for b in &e.blocks {
            match b {
                Block::Text { text } if e.role == Role::User => {
                    let text = one_line(&strip_base64(text));
                    if !text.is_empty() {
                        f.asked.push(text);
                    }
                }
                Block::Text { text } if e.role == Role::Assistant => {
                    let text = one_line(text);
                    if !text.is_empty() {
                        f.last_said = Some(text);
                    }
                }
                Block::ToolCall(call) => {
                    if call.kind.role == ToolRole::Writes {
                        match &call.input {
                            Value::String(patch) => files.extend(patch_files(patch)),
                            input => files.extend(path_argument(input)),
                        }
                    }
                    if call.kind.role == ToolRole::Runs {
                        if let Some(command) = key_argument(&call.input).map(|c| one_line(&c)) {
                            let outcome = call.result.as_ref().and_then(|r| test_outcome(&r.text));
                            if let Some(outcome) = outcome {
                                f.last_test = Some((command.clone(), outcome));
                            }
                            if !read_only(&command) && !f.commands.contains(&command) {
                                f.commands.push(command);
                            }
                        }
                    }
                    if let Some(r) = call.result.as_ref().filter(|r| r.is_error) {
                        push_error(&mut f.errors, &r.text);
                    }
                }
                Block::ToolResult { result, .. } if result.is_error => {
                    push_error(&mut f.errors, &result.text);
                }
                _ => {}
            }
        }
    }
    f.files_changed = files.into_iter().collect();
    f
}

/// Adds the telling line of a failed call's output, once.
fn push_error(errors: &mut Vec<String>, output: &str) {
    if let Some(line) = telling_line(output).filter(|l| !errors.contains(l)) {
        errors.push(line);
    }
}

/// The first line of an error output that says something: not an exit
/// code, not a wrapper tag, not the person declining a tool call.
fn telling_line(output: &str) -> Option<String> {
    use std::sync::LazyLock;
    static NOISE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?i)^(?:exit code:? \d+|</?[a-z_-]+>|command (?:failed|exited)(?: with (?:exit )?code \d+)?:?|error:?)$")
            .expect("the noise pattern compiles")
    });
    let declined = output.contains("doesn't want to proceed with this tool use")
        || output.starts_with("[Request interrupted");
    if declined {
        return None;
    }
    output
        .lines()
        .map(|l| {
            let l = l.trim();
            // `<tool_use_error>File has not been read yet</tool_use_error>`.
            let l = l.strip_prefix("<tool_use_error>").unwrap_or(l);
            l.strip_suffix("</tool_use_error>").unwrap_or(l).trim()
        })
        .find(|l| !l.is_empty() && !NOISE.is_match(l))
        .map(one_line)
}

/// Whether a shell command only looks (every part of a `&&`, `;` or `|`
/// chain): its output was for the agent, not for the next session.
fn read_only(command: &str) -> bool {
    const LOOKS: &[&str] = &[
        "ls", "cat", "head", "tail", "grep", "rg", "find", "fd", "pwd", "echo", "wc", "tree",
        "which", "type", "file", "stat", "du", "df", "less", "more", "diff", "awk", "jq", "sort",
        "uniq", "cd", "date", "env", "printenv", "whoami", "uname", "sleep", "true",
    ];
    const GIT_LOOKS: &[&str] = &[
        "log",
        "diff",
        "status",
        "show",
        "branch",
        "blame",
        "rev-parse",
        "ls-files",
        "grep",
        "remote",
        "reflog",
        "describe",
        "shortlog",
        "fetch",
        "config",
    ];
    let command = command
        .replace("2>&1", "")
        .replace(">&2", "")
        .replace("2>/dev/null", "");
    command
        .split(['|', ';', '&'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .all(|part| {
            // A redirection writes a file.
            if part.contains('>') {
                return false;
            }
            let mut words = part
                .split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'));
            match words.next() {
                Some("git") => {
                    // `git -C dir log`: options and their values come first.
                    let mut sub = None;
                    while let Some(w) = words.next() {
                        match w {
                            "-C" | "-c" => {
                                words.next();
                            }
                            w if w.starts_with('-') => {}
                            w => {
                                sub = Some(w);
                                break;
                            }
                        }
                    }
                    sub.is_some_and(|sub| GIT_LOOKS.contains(&sub))
                }
                Some("gh") => part.contains(" view") || part.contains(" list"),
                Some("sed") => part.contains(" -n"),
                Some(program) => LOOKS.contains(&program.rsplit('/').next().unwrap_or(program)),
                None => true,
            }
        })
}

/// A tool call's line and weight; `None` for a read-only call that
/// went well.
fn tool_line(
    call: &ToolCall,
    o: &CondenseOptions,
    files: &mut BTreeSet<String>,
    errors: &mut usize,
) -> Option<(Weight, String)> {
    let failed = call.result.as_ref().filter(|r| r.is_error);
    if call.kind.role == ToolRole::Looks && failed.is_none() {
        return None;
    }
    let target = key_argument(&call.input);
    let mut weight = Weight::Tool;
    if call.kind.role == ToolRole::Writes {
        weight = Weight::Fact;
        match &call.input {
            Value::String(patch) => files.extend(patch_files(patch)),
            input => files.extend(path_argument(input)),
        }
    }
    let mut line = format!("→ {}", call.name);
    if let Some(t) = target {
        let _ = write!(line, " {}", clip(&one_line(&t), o.max_detail));
    }
    if let Some(r) = failed {
        *errors += 1;
        weight = Weight::Fact;
        let _ = write!(line, " ✗ {}", clip(&first_line(&r.text), o.max_detail));
    } else if let Some(outcome) = call
        .result
        .as_ref()
        .filter(|_| call.kind.role == ToolRole::Runs)
        .and_then(|r| test_outcome(&r.text))
    {
        weight = Weight::Fact;
        let _ = write!(line, " ⇒ {}", clip(&outcome, 3 * o.max_detail));
    }
    Some((weight, line))
}

/// The lines of a command's output that say how its tests or build went:
/// the first three failures, the first two passes of whole tests, and the
/// last summary (`test result: ok. 12 passed`, `5 failed, 20 passed`).
fn test_outcome(output: &str) -> Option<String> {
    use std::sync::LazyLock;
    static FAILED: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"^(?:--- FAIL: |FAIL\b|FAILED\b|test \S+ \.\.\. FAILED|error(?:\[E\d+\])?: |✗ |× )",
        )
        .expect("the failure pattern compiles")
    });
    static PASSED: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"^--- PASS: ").expect("the pass pattern compiles"));
    static SUMMARY: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?i)(?:test result:|\b\d+ (?:passed|failed|passing|failing)\b|^tests?:\s+\d|^(?:ok|PASS)\s+\S+\s+[\d.]+s$|\bbuild (?:succeeded|failed)\b)")
            .expect("the summary pattern compiles")
    });
    // Indented lines are subtests and context: only a line's own start counts.
    let lines = || {
        output
            .lines()
            .filter(|l| !l.starts_with([' ', '\t']))
            .map(str::trim_end)
    };
    let mut said: Vec<String> = lines()
        .filter(|l| FAILED.is_match(l))
        .take(3)
        .map(one_line)
        .collect();
    said.extend(lines().filter(|l| PASSED.is_match(l)).take(2).map(one_line));
    said.extend(lines().rfind(|l| SUMMARY.is_match(l)).map(one_line));
    (!said.is_empty()).then(|| said.join(" | "))
}

/// The argument that says what a tool call did.
fn key_argument(input: &Value) -> Option<String> {
    match input {
        Value::String(s) => {
            let files = patch_files(s);
            Some(if files.is_empty() {
                first_line(s)
            } else {
                files.join(", ")
            })
        }
        Value::Object(o) => {
            const KEYS: &[&str] = &[
                "command",
                "cmd",
                "file_path",
                "path",
                "notebook_path",
                "pattern",
                "query",
                "url",
                "description",
                "prompt",
                "subject",
            ];
            KEYS.iter().find_map(|k| match o.get(*k)? {
                Value::String(s) => Some(s.clone()),
                // Codex shell commands: ["bash", "-lc", "cargo test"].
                Value::Array(a) => Some(
                    a.iter()
                        .filter_map(Value::as_str)
                        .skip_while(|s| matches!(*s, "bash" | "zsh" | "sh" | "-lc" | "-c"))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            })
        }
        _ => None,
    }
}

pub(crate) fn path_argument(input: &Value) -> Option<String> {
    ["file_path", "path", "notebook_path", "target_file"]
        .iter()
        .find_map(|k| input.get(*k)?.as_str().map(str::to_string))
}

/// Files named in an apply_patch body.
pub(crate) fn patch_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|p| l.strip_prefix(p))
        })
        .map(|f| f.trim().to_string())
        .collect()
}

pub(crate) fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, cut at a character boundary, marked with `…`.
/// Replaces long runs of base64 (inline images, blobs) by their size.
pub(crate) fn strip_base64(s: &str) -> String {
    const MIN_RUN: usize = 200;
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=');
    let mut out = String::with_capacity(s.len().min(4096));
    let mut run_start: Option<usize> = None;
    let flush = |out: &mut String, start: usize, end: usize| {
        if end - start >= MIN_RUN {
            let _ = write!(out, "[base64, {} bytes]", end - start);
        } else {
            out.push_str(&s[start..end]);
        }
    };
    for (i, c) in s.char_indices() {
        match (is_b64(c), run_start) {
            (true, None) => run_start = Some(i),
            (false, Some(start)) => {
                flush(&mut out, start, i);
                run_start = None;
                out.push(c);
            }
            (false, None) => out.push(c),
            (true, Some(_)) => {}
        }
    }
    if let Some(start) = run_start {
        flush(&mut out, start, s.len());
    }
    out
}
