//! The bill: every LLM call thehook makes is one line of
//! `.thehook/logs/llm.log` (which CLI and model, bytes out and back, tokens
//! and cost as the CLI reported them, else estimated and marked so), and
//! `status` adds them up for today and the last 30 days.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::agents::Agent;
use crate::capture::llm::{Answer, LlmFailure, Usage};
use crate::process::llm_command::LlmCommand;
use crate::project::Project;

/// The log the calls are recorded in (rotated like every log).
pub const LOG: &str = "llm.log";

/// What some LLM calls cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Spend {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// As the CLIs reported it; calls without a reported cost add nothing.
    pub cost_usd: f64,
    /// Calls whose tokens are estimated from bytes (the CLI reported none).
    pub estimated_calls: u64,
}

/// Spend today (local time) and over the last 30 days.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LlmUsage {
    pub today: Spend,
    pub last_30_days: Spend,
    /// What of `llm.daily_budget` is spent (`50 of 50 calls`), when no more
    /// calls are made today.
    pub budget_spent: Option<String>,
}

/// What a call is made for, as the bill records it.
pub(crate) enum Purpose {
    /// Distilling the session `session_id` of `agent`.
    Capture { session_id: String, agent: Agent },
    /// Consolidating the sessions waiting into knowledge.
    Consolidation,
}

/// Records one call.
pub(crate) fn record(
    project: &Project,
    cmd: &LlmCommand,
    purpose: &Purpose,
    prompt: &str,
    answer: &Result<Answer, LlmFailure>,
    took: Duration,
) {
    let reported = answer.as_ref().ok().and_then(|a| a.usage);
    let answer_bytes = answer.as_ref().map_or(0, |a| a.text.len());
    // About 4 bytes a token, for CLIs that say nothing.
    let usage = reported.unwrap_or(Usage {
        input_tokens: prompt.len() as u64 / 4,
        output_tokens: answer_bytes as u64 / 4,
        cost_usd: None,
    });
    let (session, consolidation) = match purpose {
        Purpose::Capture { session_id, .. } => (Some(session_id.as_str()), false),
        Purpose::Consolidation => (None, true),
    };
    let line = serde_json::json!({
        "session": session,
        "consolidation": consolidation,
        "cli": cmd.label,
        "model": cmd.model,
        "ok": answer.is_ok(),
        "seconds": (took.as_secs_f64() * 10.0).round() / 10.0,
        "prompt_bytes": prompt.len(),
        "answer_bytes": answer_bytes,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "estimated": reported.is_none(),
    });
    crate::logs::append(project, LOG, &line.to_string());
}

/// The calls recorded for `project`, added up as of `now`.
pub fn usage(project: &Project, now: &jiff::Zoned) -> LlmUsage {
    let today = start_of_day(now);
    let month = now.timestamp() - jiff::SignedDuration::from_hours(30 * 24);
    let mut out = LlmUsage::default();
    for (time, call) in calls(project) {
        if time >= month {
            add(&mut out.last_30_days, &call);
        }
        if time >= today {
            add(&mut out.today, &call);
        }
    }
    out
}

/// What the calls of the last `days` cost, per day (local time, oldest
/// first, every day listed) and per session captured (the costliest first).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Bill {
    pub days: Vec<DaySpend>,
    pub sessions: Vec<SessionSpend>,
    /// Consolidations, and calls recorded before the session was.
    pub other: Spend,
    pub total: Spend,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DaySpend {
    /// `YYYY-MM-DD`.
    pub day: String,
    pub spend: Spend,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SessionSpend {
    pub session_id: String,
    pub spend: Spend,
}

/// The calls recorded for `project` over the `days` up to `now`.
pub fn bill(project: &Project, now: &jiff::Zoned, days: i64) -> Bill {
    let tz = now.time_zone().clone();
    let first = now.date() - jiff::Span::new().days(days - 1);
    let mut out = Bill {
        days: (0..days)
            .map(|n| DaySpend {
                day: (first + jiff::Span::new().days(n)).to_string(),
                spend: Spend::default(),
            })
            .collect(),
        ..Bill::default()
    };
    let mut sessions: std::collections::HashMap<String, Spend> = Default::default();
    for (time, call) in calls(project) {
        let day = time.to_zoned(tz.clone()).date();
        let Ok(n) = usize::try_from((day - first).get_days()) else {
            continue;
        };
        let Some(slot) = out.days.get_mut(n).filter(|_| day >= first) else {
            continue;
        };
        add(&mut slot.spend, &call);
        add(&mut out.total, &call);
        match call.get("session").and_then(Value::as_str) {
            Some(id) => add(sessions.entry(id.to_string()).or_default(), &call),
            None => add(&mut out.other, &call),
        }
    }
    out.sessions = sessions
        .into_iter()
        .map(|(session_id, spend)| SessionSpend { session_id, spend })
        .collect();
    out.sessions.sort_by(|a, b| {
        (b.spend.cost_usd, b.spend.input_tokens, &a.session_id)
            .partial_cmp(&(a.spend.cost_usd, a.spend.input_tokens, &b.session_id))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

fn start_of_day(now: &jiff::Zoned) -> jiff::Timestamp {
    now.start_of_day()
        .map(|d| d.timestamp())
        .unwrap_or(now.timestamp())
}

/// Every call recorded, with its time, oldest log first.
fn calls(project: &Project) -> Vec<(jiff::Timestamp, Value)> {
    let mut out = Vec::new();
    for name in [format!("{LOG}.1"), LOG.to_string()] {
        let text = std::fs::read_to_string(project.logs_dir().join(name)).unwrap_or_default();
        for line in text.lines() {
            let Some((time, json)) = line.split_once(' ') else {
                continue;
            };
            if let (Ok(time), Ok(call)) = (
                time.parse::<jiff::Timestamp>(),
                serde_json::from_str::<Value>(json),
            ) {
                out.push((time, call));
            }
        }
    }
    out
}

fn add(spend: &mut Spend, call: &Value) {
    let n = |k: &str| call.get(k).and_then(Value::as_u64).unwrap_or(0);
    spend.calls += 1;
    spend.input_tokens += n("input_tokens");
    spend.output_tokens += n("output_tokens");
    spend.cost_usd += call.get("cost_usd").and_then(Value::as_f64).unwrap_or(0.0);
    if call.get("estimated").and_then(Value::as_bool) == Some(true) {
        spend.estimated_calls += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bill_adds_up_per_day_and_per_session() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(project.logs_dir()).unwrap();
        let now: jiff::Zoned = "2026-11-23T15:00:00+00:00[UTC]".parse().unwrap();
        let log = [
            // 40 days ago: outside the 30 days.
            r#"2026-10-14T09:00:00Z {"session":"a","cost_usd":5.0}"#,
            r#"2026-11-21T09:00:00Z {"session":"a","input_tokens":10,"cost_usd":0.25}"#,
            r#"2026-11-23T09:00:00Z {"session":"b","input_tokens":20,"cost_usd":0.5}"#,
            r#"2026-11-23T10:00:00Z {"session":"a","input_tokens":30,"cost_usd":0.5}"#,
            r#"2026-11-23T11:00:00Z {"session":null,"consolidation":true,"cost_usd":1.0}"#,
        ];
        std::fs::write(project.logs_dir().join(LOG), log.join("\n")).unwrap();
        let bill = bill(&project, &now, 30);
        assert_eq!(bill.days.len(), 30);
        assert_eq!(bill.days[0].day, "2026-10-25");
        let today = &bill.days[29];
        assert_eq!(
            (today.day.as_str(), today.spend.calls, today.spend.cost_usd),
            ("2026-11-23", 3, 2.0)
        );
        assert_eq!(bill.days[27].spend.calls, 1);
        let sessions: Vec<_> = bill
            .sessions
            .iter()
            .map(|s| (s.session_id.as_str(), s.spend.calls, s.spend.cost_usd))
            .collect();
        assert_eq!(
            sessions,
            [("a", 2, 0.75), ("b", 1, 0.5)],
            "the costliest first"
        );
        assert_eq!((bill.other.calls, bill.total.calls), (1, 4));
    }

    #[test]
    fn calls_add_up_by_day_and_month_and_damaged_lines_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        std::fs::create_dir_all(project.logs_dir()).unwrap();
        let now: jiff::Zoned = "2026-11-23T15:00:00+00:00[UTC]".parse().unwrap();
        let log = [
            r#"2026-11-23T09:00:00Z {"input_tokens":1000,"output_tokens":200,"cost_usd":0.002,"estimated":false}"#,
            r#"2026-11-23T10:00:00Z {"input_tokens":800,"output_tokens":100,"cost_usd":null,"estimated":true}"#,
            r#"2026-11-10T10:00:00Z {"input_tokens":500,"output_tokens":50,"cost_usd":0.001,"estimated":false}"#,
            r#"2026-09-01T10:00:00Z {"input_tokens":9999,"output_tokens":9999,"cost_usd":9.0,"estimated":false}"#,
            "not a line thehook wrote",
        ];
        std::fs::write(project.logs_dir().join(LOG), log.join("\n")).unwrap();
        let u = usage(&project, &now);
        assert_eq!(
            (u.today.calls, u.today.input_tokens, u.today.output_tokens),
            (2, 1800, 300)
        );
        assert_eq!(u.today.estimated_calls, 1);
        assert!((u.today.cost_usd - 0.002).abs() < 1e-9);
        assert_eq!(
            (u.last_30_days.calls, u.last_30_days.input_tokens),
            (3, 2300)
        );
        assert!((u.last_30_days.cost_usd - 0.003).abs() < 1e-9);
    }
}
