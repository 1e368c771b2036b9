//! Step 7, with [`super::used`]: the files that change together, brought
//! up to the commit the session ended on ([`crate::cochange`]), so the next
//! session's hooks read them without reading git's history. Like the used
//! record it is this machine's own: when it cannot be read the capture goes
//! on, and the worker's log says why.

use crate::capture::context::Context;

/// Brings the history up to date; a note for the worker's log when it could not.
pub(crate) fn update(worker: &Context) -> Option<String> {
    match crate::cochange::update(&worker.project) {
        Ok(_) => None,
        Err(e) => Some(format!("the files that change together are not read: {e}")),
    }
}
