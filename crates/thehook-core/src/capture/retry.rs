//! When a failed capture is tried again without anyone asking: never in a
//! loop. Each failed capture has `failed/<id>.retry`, the attempts so far
//! and the time of the next. An LLM that failed is tried again after 1 h
//! and after 6 h, then only by hand (`thehook capture --retry`). A spent
//! daily budget is not an attempt: the capture waits for the next local day.

use std::path::PathBuf;

use jiff::{SignedDuration, Timestamp, Zoned};
use serde::{Deserialize, Serialize};

use crate::capture::queue::{file_stem, Job};
use crate::project::Project;

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

/// `failed/<stem>.retry`, `stem` a session id as a file name.
fn path(project: &Project, stem: &str) -> PathBuf {
    project.failed_dir().join(format!("{stem}.retry"))
}

/// The plan of a failed capture; a missing or damaged file is a first failure.
pub(crate) fn read(project: &Project, stem: &str) -> RetryPlan {
    std::fs::read(path(project, stem))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// The file that records `plan`, and its bytes, for the caller to write
/// with the other files of a failed capture.
pub(crate) fn file(project: &Project, stem: &str, plan: &RetryPlan) -> (PathBuf, Vec<u8>) {
    let json = serde_json::to_vec(plan).expect("a plan always serializes");
    (path(project, stem), json)
}

/// Of the failed captures `failed`, those whose next automatic attempt is
/// due at `now`, in the order given.
pub(crate) fn due(
    project: &Project,
    failed: Vec<(PathBuf, Job)>,
    now: Timestamp,
) -> Vec<(PathBuf, Job)> {
    failed
        .into_iter()
        .filter(|(_, job)| {
            read(project, &file_stem(&job.session_id))
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
