//! One session through the capture, top to bottom: each step a file of its
//! own that takes what the step before produced.
//!
//! 1. [`locate`]: the transcript's path, waited for while its agent writes it;
//! 2. [`read`]: the transcript read into the common model, secrets redacted;
//! 3. [`condense`]: what the LLM is given, and the facts read off the transcript;
//! 4. [`distil`]: the LLM's answer, checked, or the heuristic one and why;
//!    a line only a source outside the project said is marked so
//!    (`capture/provenance.rs`);
//! 5. [`session`]: the session file's text, no home folder in it;
//! 6. [`write`]: the file written and indexed under the project lock;
//! 7. [`used`]: what the hooks gave the session, marked used or not;
//! 8. [`keep`]: the outcome: `failed/` cleared, or the job kept there to retry.
//!
//! A step that cannot go on says why ([`Stop`]); [`keep`] turns that into
//! the outcome too, so every session leaves by the same door.

use std::path::PathBuf;

use crate::capture::queue::{file_stem, Job};
use crate::capture::workbench::Workbench;

pub(crate) mod condense;
mod distil;
pub(crate) mod keep;
pub(crate) mod locate;
pub(crate) mod read;
mod session;
mod used;
mod write;

pub(crate) use keep::Captured;

/// Why a session's capture stopped before a file was written.
#[derive(Debug)]
pub(crate) enum Stop {
    /// No session file: the job goes to `failed/`, with the transcript
    /// when there is one.
    Failed {
        transcript: Option<PathBuf>,
        reason: String,
    },
    /// Nothing to capture.
    Skipped { why: String },
}

/// Captures the session `job` names.
pub(crate) fn capture(workbench: &mut Workbench, job: &Job) -> Captured {
    let stem = file_stem(&job.session_id);
    let done = through(workbench, job, &stem);
    keep::outcome(workbench, job, &stem, done)
}

/// Steps 1 to 7.
fn through(workbench: &mut Workbench, job: &Job, stem: &str) -> Result<write::Written, Stop> {
    let redacting = workbench.config.capture.redact_secrets;
    let transcript = locate::transcript(
        job,
        stem,
        &workbench.project,
        workbench.around.home.as_deref(),
    )?;
    let mut read = read::read(&transcript, redacting)?;
    let input = condense::condense(&mut read, redacting);
    let mut distilled = distil::distil(&input, redacting, |prompt| {
        crate::capture::call::ask(
            &workbench.project,
            &workbench.config.llm,
            workbench.around.path.as_deref(),
            prompt,
            &crate::capture::bill::Purpose::Capture {
                session_id: job.session_id.clone(),
                agent: job.agent,
            },
        )
    });
    let outside = crate::capture::provenance::mark_outside(
        &mut distilled.distilled,
        &read.transcript,
        workbench.project.root(),
    );
    let session = session::render(job, &read, input, distilled);
    let mut written = write::write(workbench, stem, transcript, &read, session)?;
    if outside > 0 {
        written.notes.push(format!(
            "{}: {outside} line(s) only a source outside the project said, marked \"from outside\": withheld until a person confirms them (thehook review)",
            job.session_id
        ));
    }
    written
        .notes
        .extend(used::record(workbench, &job.session_id, &read));
    Ok(written)
}
