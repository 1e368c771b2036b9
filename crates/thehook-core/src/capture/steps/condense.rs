//! Step 3: what the LLM is given (the condensed transcript within
//! [`MAX_INPUT`], the developer's folders scrubbed, secrets in prose
//! redacted) and the facts read off the transcript without it.

use super::read::Read;
use crate::capture::paths;
use crate::text::redact;
use crate::transcript::{condense_lines, facts, CondenseOptions, Facts, Transcript};

/// Most bytes of condensed transcript sent to the LLM (the prompt around
/// it adds about 2 KB): a longer one loses its least useful lines first.
pub(crate) const MAX_INPUT: usize = 21_000;

/// What the distilling step starts from.
pub(crate) struct Input {
    /// The LLM's part of the prompt.
    pub(crate) text: String,
    /// What the session did, its changed files relative to the repository.
    pub(crate) facts: Facts,
}

pub(crate) fn condense(read: &mut Read, redacting: bool) -> Input {
    let cwd = read.transcript.cwd.clone();
    let mut facts = facts(&read.transcript);
    let condensed = llm_input(&read.transcript);
    // The LLM never sees the developer's folders, so it cannot write them.
    let mut text = paths::scrub(&condensed, cwd.as_deref());
    facts.files_changed = paths::relative_files(&facts.files_changed, cwd.as_deref());
    if redacting {
        text = redact::redact_counting(&text, &mut read.found).into_owned();
    }
    Input { text, facts }
}

/// The condensed transcript as the LLM gets it, within [`MAX_INPUT`].
pub(crate) fn llm_input(t: &Transcript) -> String {
    condense_lines(t, &CondenseOptions::default()).fit(MAX_INPUT)
}
