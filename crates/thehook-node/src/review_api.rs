//! What a range of commits adds to memory, for editor extensions and bots:
//! `review({ since })`, the report of `thehook review --since`.

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use thehook_core::memory::Refresh;
use thehook_core::views::review_range::{
    review_range, to_markdown, RangeItem, RangeReview, RangeTitle,
};

use crate::memories;
use crate::memory_api::MemoryItem;
use crate::task::{CoreTask, Failure};

/// Options of `review`.
#[napi(object)]
#[derive(Default)]
pub struct ReviewOptions {
    /// What to review: `REV` (what `HEAD` adds since it left `REV`, as a
    /// pull request's diff) or `BASE..HEAD`.
    pub since: Option<String>,
    /// The project (default: `process.cwd()`; the nearest folder upwards with `.thehook/`).
    pub project_dir: Option<String>,
}

/// One item the range adds or changes, and what a reviewer should know.
#[napi(object)]
pub struct ReviewedItem {
    pub item: MemoryItem,
    /// `added`, or `changed` (its lines replace lines of the base).
    pub change: String,
    /// The commit that last changed its first line, and its author.
    pub commit: Option<String>,
    pub author: Option<String>,
    /// Why agents are not given it (`rule: what it catches`, then the
    /// learned check's score); absent when they are.
    pub withheld: Option<String>,
    /// What the rule matched, or the start of the text for the learned check.
    pub matched: Option<String>,
    /// The learned check has not read it yet (the model did not run).
    pub unjudged: bool,
    /// Its lines hold text a reviewer cannot see; agents are given it without.
    pub hidden_text: bool,
    /// Secrets the redactor finds in it: `kind xN` each.
    pub secrets: Vec<String>,
    /// Why it is stale at the range's end (a cited path or symbol gone).
    pub stale: Option<String>,
    /// An item already on the base that says nearly the same.
    pub duplicate_of: Option<MemoryItem>,
}

/// A session title the range adds that a rule withholds.
#[napi(object)]
pub struct ReviewedTitle {
    pub title: String,
    pub citation: String,
    pub withheld: String,
    pub commit: Option<String>,
    pub author: Option<String>,
}

/// What `review` resolves to (the core's `RangeReview`).
#[napi(object)]
pub struct RangeReviewResult {
    /// The range as asked.
    pub range: String,
    /// The merge base the range starts after, and the head it ends at.
    pub base: String,
    pub head: String,
    /// The files under `.thehook/` the range adds or changes.
    pub files: Vec<String>,
    pub items: Vec<ReviewedItem>,
    pub titles: Vec<ReviewedTitle>,
    /// What `review --check` fails on: anything withheld, not judged or secret.
    pub fails_check: bool,
    /// The report as `review --since --markdown` prints it (secrets redacted).
    pub markdown: String,
}

impl From<RangeItem> for ReviewedItem {
    fn from(i: RangeItem) -> ReviewedItem {
        let (commit, author) = i.blamed.map(|b| (b.commit, b.author)).unzip();
        let withheld = i.item.withheld.as_ref();
        ReviewedItem {
            change: i.change.as_str().to_string(),
            commit,
            author,
            withheld: withheld.map(|w| w.describe()),
            matched: withheld.map(|w| w.matched.clone()),
            unjudged: i.item.awaiting_check,
            hidden_text: i.hidden_text,
            secrets: i.secrets.iter().map(|(k, n)| format!("{k} x{n}")).collect(),
            stale: i.stale,
            duplicate_of: i.duplicate_of.map(Into::into),
            item: i.item.into(),
        }
    }
}

impl From<RangeTitle> for ReviewedTitle {
    fn from(t: RangeTitle) -> ReviewedTitle {
        let (commit, author) = t.blamed.map(|b| (b.commit, b.author)).unzip();
        ReviewedTitle {
            title: t.title,
            citation: t.citation,
            withheld: t.withheld.describe(),
            commit,
            author,
        }
    }
}

impl From<RangeReview> for RangeReviewResult {
    fn from(r: RangeReview) -> RangeReviewResult {
        RangeReviewResult {
            fails_check: r.fails_check(),
            markdown: to_markdown(&r),
            range: r.range,
            base: r.base,
            head: r.head,
            files: r.files,
            items: r.items.into_iter().map(Into::into).collect(),
            titles: r.titles.into_iter().map(Into::into).collect(),
        }
    }
}

/// What the commits since `since` add or change under `.thehook/`, item by
/// item, as `thehook review --since` reports it (after a full sync, so the
/// learned check has read every new item).
#[napi(ts_return_type = "Promise<RangeReviewResult>")]
pub fn review(options: ReviewOptions) -> AsyncTask<CoreTask<RangeReviewResult>> {
    AsyncTask::new(CoreTask::new(move || {
        let since = options
            .since
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| {
                Failure::usage("review needs `since`: a commit, a branch or BASE..HEAD".into())
            })?;
        let review = memories::with(
            options.project_dir.as_deref(),
            false,
            Refresh::EveryFile,
            |m| review_range(m, &since),
        )?;
        Ok(review.into())
    }))
}
