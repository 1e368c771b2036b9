//! How a command ends: its exit code, or the error the binary prints.

use thehook_core::Error;

/// Exit codes: 0 success, 1 nothing found, 2 usage or input error, 3 a
/// check found what it gates on (`review --since --check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Success = 0,
    NothingFound = 1,
    Usage = 2,
    Findings = 3,
}

impl Exit {
    /// What a failure exits with: 1 when there is simply nothing to find,
    /// 2 for everything the user has to fix. The core's `code()` is the one
    /// classification of errors.
    pub fn of(error: &Error) -> Exit {
        if error.is_not_found() {
            Exit::NothingFound
        } else {
            Exit::Usage
        }
    }

    /// `Success` when something was found, else `NothingFound`.
    pub fn found(any: bool) -> Exit {
        if any {
            Exit::Success
        } else {
            Exit::NothingFound
        }
    }
}

/// What a command returns: its exit code, or the error [`run`] prints.
pub(crate) type CommandResult = Result<Exit, Error>;
