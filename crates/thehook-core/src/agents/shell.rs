//! The shell an agent runs its hook commands in, and how a program's path
//! is written for it. Read from the agents' own code (README, Platforms):
//!
//! | agent | macOS, Linux | Windows |
//! |---|---|---|
//! | Claude Code | `sh -c` | Git Bash (`bash.exe -c`); PowerShell only without Git Bash |
//! | Codex | the user's shell `-c` | PowerShell `-NoProfile -Command` |
//! | Gemini CLI | `bash -c` | PowerShell `-NoProfile -Command` |
//! | Cursor | undocumented; `sh` | undocumented; users report PowerShell |
//!
//! None runs hooks through `cmd.exe` unless its own shell cannot be found.

/// A shell family, as far as quoting a program path goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// sh, bash, zsh, and Git Bash on Windows.
    Posix,
    /// Windows PowerShell and pwsh.
    PowerShell,
}

impl Shell {
    /// The shell of a terminal on this platform, for commands a person runs.
    pub fn native() -> Shell {
        if cfg!(windows) {
            Shell::PowerShell
        } else {
            Shell::Posix
        }
    }

    /// `program` written so that this shell runs it, with arguments
    /// appended after a space: untouched when nothing in it is special.
    ///
    /// - Posix: single quotes (a `'` inside becomes `'\''`); on Git Bash a
    ///   Windows path's `\` become `/`, which it reads the same and which
    ///   no quoting can mangle.
    /// - PowerShell: a quoted string alone is a value, not a command, so
    ///   the call operator runs it: `& 'C:\Program Files\thehook.exe'`
    ///   (a `'` inside is doubled).
    pub fn program(self, program: &str) -> String {
        match self {
            Shell::Posix => self.argument(program),
            Shell::PowerShell => {
                let quoted = self.argument(program);
                if quoted.starts_with('\'') {
                    format!("& {quoted}")
                } else {
                    quoted
                }
            }
        }
    }

    /// `value` as one argument of a command line in this shell: untouched
    /// when nothing in it is special, else single-quoted (PowerShell also
    /// ends a single-quoted string at the typographic quotes `‘’‚‛`, so
    /// each of those is doubled too).
    pub fn argument(self, value: &str) -> String {
        match self {
            Shell::Posix => {
                let value = if is_windows_path(value) {
                    value.replace('\\', "/")
                } else {
                    value.to_string()
                };
                if value
                    .contains(|c: char| c.is_whitespace() || "\"'$`\\&|;<>()*?[]#~!{}".contains(c))
                {
                    format!("'{}'", value.replace('\'', r"'\''"))
                } else {
                    value
                }
            }
            Shell::PowerShell => {
                if value
                    .contains(|c: char| c.is_whitespace() || "'\"`$&|;<>(){}@#,‘’‚‛“”„".contains(c))
                {
                    let mut quoted = String::from("'");
                    for c in value.chars() {
                        if "'‘’‚‛".contains(c) {
                            quoted.push(c);
                        }
                        quoted.push(c);
                    }
                    quoted.push('\'');
                    quoted
                } else {
                    value.to_string()
                }
            }
        }
    }
}

/// `C:\...` or `C:/...`: a drive-letter path.
fn is_windows_path(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')
}

/// The words of a command line as any of these shells read them, for
/// recognising thehook's own commands whichever way they were written:
/// PowerShell's leading `&` is skipped, quotes are removed, and a `\` is
/// an escape only before a quote or a space (elsewhere it is part of a
/// Windows path). Nothing is expanded.
pub(crate) fn words(command: &str) -> Vec<String> {
    let command = command.trim_start();
    let command = command.strip_prefix("& ").unwrap_or(command);
    let mut chars = command.chars().peekable();
    let mut words = Vec::new();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return words;
        }
        let mut word = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
            match c {
                '\'' => word.extend(chars.by_ref().take_while(|&c| c != '\'')),
                '"' => word.extend(chars.by_ref().take_while(|&c| c != '"')),
                '\\' => match chars.next_if(|&n| n == '\'' || n == '"' || n.is_whitespace()) {
                    Some(escaped) => word.push(escaped),
                    None => word.push('\\'),
                },
                c => word.push(c),
            }
        }
        words.push(word);
    }
}

/// The file name at the end of a path written with `/` or `\`.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_quotes_only_what_needs_it_and_git_bash_gets_forward_slashes() {
        for (path, written) in [
            ("/usr/local/bin/thehook", "/usr/local/bin/thehook"),
            ("/Users/a b/bin/thehook", "'/Users/a b/bin/thehook'"),
            ("/home/o'neil/thehook", r"'/home/o'\''neil/thehook'"),
            ("/opt/$HOME/thehook", "'/opt/$HOME/thehook'"),
            (
                r"C:\Program Files\thehook\thehook.exe",
                "'C:/Program Files/thehook/thehook.exe'",
            ),
            (
                r"C:\Users\ann\AppData\Roaming\npm\thehook.exe",
                "C:/Users/ann/AppData/Roaming/npm/thehook.exe",
            ),
            ("thehook", "thehook"),
        ] {
            assert_eq!(Shell::Posix.program(path), written, "{path}");
        }
    }

    #[test]
    fn powershell_calls_a_quoted_path_with_the_call_operator() {
        for (path, written) in [
            (
                r"C:\Program Files\thehook\thehook.exe",
                r"& 'C:\Program Files\thehook\thehook.exe'",
            ),
            (
                r"C:\Users\o'neil\thehook.exe",
                r"& 'C:\Users\o''neil\thehook.exe'",
            ),
            // `$` and backticks are literal inside single quotes, and would not be outside.
            (r"C:\a$b`c\thehook.exe", r"& 'C:\a$b`c\thehook.exe'"),
            // PowerShell ends a single-quoted string at a typographic quote too.
            (
                r"C:\Users\O’Brien\thehook.exe",
                r"& 'C:\Users\O’’Brien\thehook.exe'",
            ),
            (
                r"C:\Users\ann\AppData\Roaming\npm\thehook.exe",
                r"C:\Users\ann\AppData\Roaming\npm\thehook.exe",
            ),
        ] {
            assert_eq!(Shell::PowerShell.program(path), written, "{path}");
        }
        // An argument needs no call operator.
        assert_eq!(
            Shell::PowerShell.argument(r"C:\Program Files\thehook.exe"),
            r"'C:\Program Files\thehook.exe'"
        );
    }

    #[test]
    fn every_written_form_reads_back_as_its_program_and_subcommand() {
        let paths = [
            "/usr/local/bin/thehook",
            "/Users/a b/bin/thehook",
            "/home/o'neil/x y/thehook",
            r"C:\Program Files\thehook\thehook.exe",
            r"C:\Users\o'neil\My Tools\thehook.exe",
            r"C:\Users\ann\thehook.exe",
        ];
        for path in paths {
            for shell in [Shell::Posix, Shell::PowerShell] {
                let command = format!("{} retrieve --agent codex", shell.program(path));
                let words = words(&command);
                assert_eq!(file_name(&words[0]), file_name(path), "{command}");
                assert_eq!(words[1..], ["retrieve", "--agent", "codex"], "{command}");
            }
        }
        assert_eq!(words(" \t"), Vec::<String>::new());
        assert_eq!(
            words(r#""C:\x y\thehook.exe" capture"#),
            [r"C:\x y\thehook.exe", "capture"]
        );
    }

    /// The Posix form run by the real shells here: a `thehook` in a folder
    /// whose name has a space, a quote and a `$` prints its arguments.
    #[cfg(unix)]
    #[test]
    fn the_posix_form_runs_in_sh_and_bash() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("it's a $HOME dir");
        std::fs::create_dir(&folder).unwrap();
        let program = folder.join("thehook");
        std::fs::write(&program, "#!/bin/sh\necho \"ran $1 $2\"\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let command = format!(
            "{} retrieve --agent",
            Shell::Posix.program(program.to_str().unwrap())
        );
        for shell in ["sh", "bash"] {
            let out = std::process::Command::new(shell)
                .arg("-c")
                .arg(&command)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "ran retrieve --agent\n",
                "{shell}: {command}"
            );
        }
    }
}
