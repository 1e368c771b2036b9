//! Step 4: the LLM's answer to the extraction prompt, redacted and checked;
//! without a usable one, the heuristic extraction from the facts, and why.

use super::condense::Input;
use crate::capture::extract::{self, Distilled};
use crate::capture::llm::LlmFailure;
use crate::capture::outcome::WithoutLlm;
use crate::text::redact;

/// The session's distilled content.
pub(crate) struct Distillation {
    pub(crate) distilled: Distilled,
    /// Why it is the heuristic one, when it is.
    pub(crate) without_llm: Option<WithoutLlm>,
    /// The daily budget stopped the call (the retry waits for tomorrow).
    pub(crate) over_budget: bool,
}

/// `ask` runs the LLM on a prompt.
pub(crate) fn distil(
    input: &Input,
    redacting: bool,
    ask: impl FnOnce(&str) -> Result<String, LlmFailure>,
) -> Distillation {
    let asked = ask(&extract::prompt(&input.text));
    let over_budget = matches!(asked, Err(LlmFailure::OverBudget(_)));
    let answer = asked.map_err(WithoutLlm::Failed).and_then(|answer| {
        let answer = if redacting {
            redact::redact(&answer).into_owned()
        } else {
            answer
        };
        extract::parse_answer(&answer).map_err(WithoutLlm::Unusable)
    });
    match answer {
        Ok(distilled) => Distillation {
            distilled,
            without_llm: None,
            over_budget,
        },
        Err(why) => Distillation {
            distilled: extract::heuristic(&input.facts),
            without_llm: Some(why),
            over_budget,
        },
    }
}
