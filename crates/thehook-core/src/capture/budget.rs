//! The daily budget (`llm.daily_budget`): checked before every LLM call
//! against the bill of the local day. Past it no call is made; the capture
//! is written from the transcript alone and waits in `failed/` until the
//! next day, when the worker tries it again (see `capture/retry.rs`).

use crate::capture::bill::{self, Spend};
use crate::config::DailyBudget;
use crate::project::Project;

/// What of the budget is spent, e.g. `50 of 50 calls`; `None` while calls
/// are allowed.
pub(crate) fn spent(budget: &DailyBudget, today: &Spend) -> Option<String> {
    if let Some(max) = budget.calls.filter(|max| today.calls >= *max) {
        return Some(format!("{} of {max} calls", today.calls));
    }
    if let Some(max) = budget.usd.filter(|max| today.cost_usd >= *max) {
        return Some(format!("${:.2} of ${max:.2}", today.cost_usd));
    }
    None
}

/// [`spent`] for `project` as of now.
pub(crate) fn spent_today(project: &Project, budget: &DailyBudget) -> Option<String> {
    spent(budget, &bill::usage(project, &jiff::Zoned::now()).today)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(calls: u64, cost_usd: f64) -> Spend {
        Spend {
            calls,
            cost_usd,
            ..Spend::default()
        }
    }

    #[test]
    fn either_limit_stops_the_calls_and_null_lifts_one() {
        let both = DailyBudget {
            calls: Some(3),
            usd: Some(0.5),
        };
        assert_eq!(spent(&both, &day(2, 0.1)), None);
        assert_eq!(spent(&both, &day(3, 0.1)).as_deref(), Some("3 of 3 calls"));
        assert_eq!(
            spent(&both, &day(1, 0.5)).as_deref(),
            Some("$0.50 of $0.50")
        );
        let no_limit = DailyBudget {
            calls: None,
            usd: None,
        };
        assert_eq!(spent(&no_limit, &day(10_000, 99.0)), None);
        let none_at_all = DailyBudget {
            calls: Some(0),
            usd: None,
        };
        assert!(spent(&none_at_all, &day(0, 0.0)).is_some());
    }
}
