//! When a failed capture is tried again without anyone asking: never in a
//! loop. Each failed capture has `failed/<id>.retry`, the attempts so far
//! and the time of the next. An LLM that failed is tried again after 1 h
//! and after 6 h, then only by hand (`thehook capture --retry`). A spent
//! daily budget is not an attempt: the capture waits for the next local day.

use std::path::PathBuf;

use jiff::{SignedDuration, Timestamp, Zoned};
use serde::{Deserialize, Serialize};

use crate::capture::queue::{file_stem, Job};
use crate::memory::store::write_atomic;
use crate::project::Project;

use super::files::failed_jobs;

/// The spacing of automatic attempts; their count is its length plus the
/// first try.
const SPACING_HOURS: [i64; 2] = [1, 6];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RetryPlan {
    /// LLM attempts that failed, the first capture included.
    pub attempts: u32,
    /// `None`: no automatic attempt is left.
    pub next_try: Option<Timestamp>,
}

impl RetryPlan {
    /// The plan after one more failure.
    pub(crate) fn after(self, over_budget: bool, now: &Zoned) -> RetryPlan {
        if over_budget {
            let tomorrow = now
                .start_of_day()
                .and_then(|d| d.tomorrow())
                .map(|d| d.timestamp())
                .unwrap_or_else(|_| now.timestamp() + SignedDuration::from_hours(24));
            return RetryPlan {
                attempts: self.attempts,
                next_try: Some(tomorrow),
            };
        }
        let attempts = self.attempts + 1;
        let next_try = SPACING_HOURS
            .get(attempts as usize - 1)
            .map(|h| now.timestamp() + SignedDuration::from_hours(*h));
        RetryPlan { attempts, next_try }
    }
}

fn path(project: &Project, session_id: &str) -> PathBuf {
    project
        .failed_dir()
        .join(format!("{}.retry", file_stem(session_id)))
}

/// The plan of a failed capture; a missing or damaged file is a first failure.
pub(crate) fn read(project: &Project, session_id: &str) -> RetryPlan {
    std::fs::read(path(project, session_id))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

pub(crate) fn write(
    project: &Project,
    session_id: &str,
    plan: &RetryPlan,
) -> crate::error::Result<()> {
    let json = serde_json::to_vec(plan).expect("a plan always serializes");
    write_atomic(&path(project, session_id), &json)
}

/// Failed captures whose next automatic attempt is due at `now`, oldest first.
pub(crate) fn due(project: &Project, now: Timestamp) -> Vec<(PathBuf, Job)> {
    failed_jobs(project)
        .into_iter()
        .filter(|(_, job)| {
            read(project, &job.session_id)
                .next_try
                .is_some_and(|t| t <= now)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_retried_twice_spaced_and_the_budget_waits_for_tomorrow() {
        let now: Zoned = "2026-11-23T15:00:00+00:00[UTC]".parse().unwrap();
        let first = RetryPlan::default().after(false, &now);
        assert_eq!(first.attempts, 1);
        assert_eq!(
            first.next_try,
            Some("2026-11-23T16:00:00Z".parse().unwrap())
        );
        let second = first.after(false, &now);
        assert_eq!(
            second.next_try,
            Some("2026-11-23T21:00:00Z".parse().unwrap())
        );
        let third = second.after(false, &now);
        assert_eq!((third.attempts, third.next_try), (3, None));
        // Over budget: no attempt is used up, the next is at local midnight.
        let waiting = third.clone().after(true, &now);
        assert_eq!(waiting.attempts, 3);
        assert_eq!(
            waiting.next_try,
            Some("2026-11-24T00:00:00Z".parse().unwrap())
        );
    }
}
