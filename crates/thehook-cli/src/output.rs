//! Where a command's text goes, and how it looks: color only on a terminal
//! and never when `NO_COLOR` is set.

use std::io::{BufRead, IsTerminal, Write};

/// The streams of one command run. The binary uses the process's own;
/// tests pass others. (The Node addon runs this binary as a child with
/// Node's streams: `crates/thehook-node/src/lib.rs`, `cli`.)
pub struct Output {
    pub stdout: Box<dyn Write>,
    pub stderr: Box<dyn Write>,
    pub stdin: Box<dyn BufRead>,
    /// Color on stdout.
    pub color: bool,
    /// Whether stderr is a terminal (progress bars are drawn only there).
    pub stderr_tty: bool,
}

impl Output {
    /// The process's stdin, stdout and stderr.
    pub fn process() -> Output {
        let no_color = thehook_core::env::no_color();
        Output {
            color: !no_color && std::io::stdout().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
            stdout: Box::new(std::io::stdout()),
            stderr: Box::new(std::io::stderr()),
            stdin: Box::new(std::io::stdin().lock()),
        }
    }

    /// Writes a line to stdout. A closed pipe (`thehook recall x | head -1`)
    /// is not an error worth a message.
    pub fn print(&mut self, text: &str) {
        let _ = writeln!(self.stdout, "{}", text.trim_end_matches('\n'));
    }

    /// Writes a line to stderr, prefixed like fd and ripgrep do.
    pub fn err(&mut self, text: &str) {
        let _ = writeln!(self.stderr, "{}", text.trim_end_matches('\n'));
    }

    pub fn note(&mut self, text: &str) {
        self.err(&format!("thehook: {text}"));
    }

    pub fn flush(&mut self) {
        let _ = self.stdout.flush();
        let _ = self.stderr.flush();
    }

    /// `text` in the given ANSI style when color is on.
    pub fn paint(&self, style: Style, text: &str) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match style {
            Style::Path => "35",
            Style::Dim => "2",
            Style::Kind => "36",
            Style::Good => "32",
            Style::Warn => "33",
            Style::Bad => "31;1",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Style {
    Path,
    Dim,
    Kind,
    Good,
    Warn,
    Bad,
}
