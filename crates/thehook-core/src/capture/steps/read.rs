//! Step 2: the transcript read into the common model, every secret in it
//! redacted (when `capture.redact_secrets` is on).

use std::path::Path;

use super::Stop;
use crate::text::redact::Findings;
use crate::transcript::{first_line, redact_transcript, Role, Transcript};

/// A transcript as the later steps may see it.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    /// The secrets taken out so far.
    pub(crate) found: Findings,
}

pub(crate) fn read(path: &Path, redacting: bool) -> Result<Read, Stop> {
    let mut transcript = crate::agents::read::load(path).map_err(|e| Stop::Failed {
        transcript: Some(path.to_path_buf()),
        reason: first_line(&e.to_string()),
    })?;
    let mut found = Findings::default();
    if redacting {
        redact_transcript(&mut transcript, &mut found);
    }
    if !has_conversation(&transcript) {
        return Err(Stop::Skipped {
            why: "the transcript holds no conversation".into(),
        });
    }
    Ok(Read { transcript, found })
}

/// Whether anyone said anything.
pub(crate) fn has_conversation(t: &Transcript) -> bool {
    t.entries
        .iter()
        .any(|e| matches!(e.role, Role::User | Role::Assistant) && !e.blocks.is_empty())
}
