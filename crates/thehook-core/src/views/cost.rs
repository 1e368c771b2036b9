//! What capture cost: the LLM bill per day and per session, the daily
//! budget and what is left of it today, and the sessions captured without
//! the LLM, with why.

use serde::Serialize;

use crate::capture::bill::{self, Bill};
use crate::config::DailyBudget;
use crate::error::Result;
use crate::memory::Memory;
use crate::project::Project;

/// The days the bill covers.
pub const DAYS: i64 = 30;

#[derive(Debug, Clone, Serialize)]
pub struct CostPage {
    pub bill: Bill,
    pub budget: DailyBudget,
    /// What of the budget is spent, when no more calls are made today.
    pub budget_spent: Option<String>,
    pub heuristic: Vec<HeuristicCapture>,
}

/// A session file written without the LLM.
#[derive(Debug, Clone, Serialize)]
pub struct HeuristicCapture {
    pub path: String,
    pub session_id: Option<String>,
    pub title: Option<String>,
    pub date: String,
    /// Why, as the worker's log says (while the log keeps it).
    pub why: Option<String>,
}

pub fn cost(memory: &Memory) -> Result<CostPage> {
    let project = memory.project();
    let bill = bill::bill(project, &jiff::Zoned::now(), DAYS);
    let budget = memory.config().llm.daily_budget.clone();
    let today = bill
        .days
        .last()
        .map(|d| d.spend.clone())
        .unwrap_or_default();
    let reasons = heuristic_reasons(project);
    let mut heuristic: Vec<HeuristicCapture> = crate::store::session_files(project)
        .into_iter()
        .filter(|f| f.front_matter.extracted.as_deref() == Some("heuristic"))
        .map(|f| {
            let path = project.relative(&f.path);
            let date = memory_date(&f.front_matter.date);
            HeuristicCapture {
                why: reasons
                    .iter()
                    .rev()
                    .find(|(file, _)| *file == path)
                    .map(|(_, why)| why.clone()),
                session_id: f.front_matter.session_id,
                title: f.front_matter.title,
                date,
                path,
            }
        })
        .collect();
    heuristic.sort_by(|a, b| b.date.cmp(&a.date));
    Ok(CostPage {
        budget_spent: crate::capture::budget::spent(&budget, &today),
        bill,
        budget,
        heuristic,
    })
}

fn memory_date(date: &Option<serde_yaml::Value>) -> String {
    match date {
        Some(serde_yaml::Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// `(session file, why)` of each capture without the LLM the worker's log
/// still holds, oldest first.
fn heuristic_reasons(project: &Project) -> Vec<(String, String)> {
    const MARK: &str = " without the LLM (";
    let log = crate::capture::workbench::LOG;
    let mut out = Vec::new();
    for name in [format!("{log}.1"), log.to_string()] {
        let text = std::fs::read_to_string(project.logs_dir().join(name)).unwrap_or_default();
        for line in text.lines() {
            let Some((head, tail)) = line.split_once(MARK) else {
                continue;
            };
            let Some((_, file)) = head.rsplit_once(" into ") else {
                continue;
            };
            let why = tail.rsplit_once(')').map_or(tail, |(why, _)| why);
            out.push((file.to_string(), why.to_string()));
        }
    }
    out
}
