//! Step 7: what the hooks gave the session, each line marked used or not by
//! what the session did afterwards ([`crate::given`]), kept beside the index.
//! It is this machine's view of the session, not memory: when it cannot be
//! worked out the capture goes on, and the worker's log says why.

use super::read::Read;
use crate::capture::workbench::Workbench;

/// Records what was given and used; a note for the worker's log when it
/// could not.
pub(crate) fn record(workbench: &Workbench, session_id: &str, read: &Read) -> Option<String> {
    let memory = workbench.memory.as_ref()?;
    match crate::given::kept::keep(memory, session_id, &read.transcript) {
        Ok(_) => None,
        Err(e) => Some(format!(
            "what {session_id} was given and used is not kept: {}",
            crate::transcript::first_line(&e.to_string())
        )),
    }
}
