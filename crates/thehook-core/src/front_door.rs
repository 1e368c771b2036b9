//! The front door: what the CLI, the MCP server and the Node addon may ask
//! for, parsed and checked once. Each front end maps its own inputs (flags,
//! tool arguments, JS options) to these types and renders the answers; the
//! defaults, limits and names accepted live here and nowhere else.
//!
//! Messages name the field (`k`, `type`, `since`, `mode`, `agent`) without a
//! front end's syntax, so they read right as a flag, a tool argument or an
//! option.

use crate::agents::Agent;
use crate::error::{fix, Error, Result, Step};
use crate::memory::index::Filter;
use crate::memory::rank::fusion::{Mode, LEXICAL_WEIGHT};
use crate::memory::{ItemRef, RecallOptions, RecallRequest, RememberRequest, RewriteRequest};
use crate::store::item::ItemKind;

/// Results of a recall when the caller does not say.
pub const DEFAULT_K: u32 = 5;
/// The most results one recall returns.
pub const MAX_K: u32 = 100;
/// Sessions listed when the caller does not say (0 lists all).
pub const DEFAULT_SESSION_LIMIT: usize = 30;

/// The type of what is remembered when none is given.
pub const DEFAULT_REMEMBERED: ItemKind = ItemKind::Note;

/// Kinds a person or an agent can add with `remember`; the others come from
/// captured sessions and consolidation.
pub const REMEMBERABLE: [ItemKind; 4] = [
    ItemKind::Convention,
    ItemKind::Adr,
    ItemKind::Gotcha,
    ItemKind::Note,
];

fn usage(problem: String, fix: impl Into<crate::error::Fix>) -> Error {
    Error::Usage {
        problem,
        source: None,
        fix: fix.into(),
    }
}

fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    all.iter().map(|&x| name(x)).collect::<Vec<_>>().join(", ")
}

/// An agent by any of the names people use (`claude`, `claude-code`, ...).
pub fn parse_agent(s: &str) -> Result<Agent> {
    Agent::parse(s).ok_or_else(|| {
        usage(
            format!("agent {s:?} is unknown"),
            format!("use one of: {}", names(&Agent::ALL, Agent::short_name)),
        )
    })
}

/// An item type (`summary`, `convention`, `adr`, ...).
pub fn parse_kind(s: &str) -> Result<ItemKind> {
    ItemKind::parse(s).ok_or_else(|| {
        usage(
            format!("type {s:?} is unknown"),
            format!("use one of: {}", names(&ItemKind::ALL, ItemKind::as_str)),
        )
    })
}

/// A type `remember` accepts.
pub fn parse_rememberable_kind(s: &str) -> Result<ItemKind> {
    match ItemKind::parse(s) {
        Some(kind) if REMEMBERABLE.contains(&kind) => Ok(kind),
        _ => Err(not_rememberable(s)),
    }
}

fn not_rememberable(name: &str) -> Error {
    usage(
        format!("type {name:?} cannot be remembered"),
        format!("use one of: {}", names(&REMEMBERABLE, ItemKind::as_str)),
    )
}

/// A search mode (`hybrid`, `lexical`, `vector`).
pub fn parse_mode(s: &str) -> Result<Mode> {
    Mode::parse(s).ok_or_else(|| {
        usage(
            format!("mode {s:?} is unknown"),
            format!("use one of: {}", names(&Mode::ALL, Mode::as_str)),
        )
    })
}

/// A lower bound in time: `2026-02-01`, an RFC 3339 time, or an age such as
/// `7d` or `2w` (before now).
pub fn parse_since(s: &str) -> Result<jiff::Timestamp> {
    parse_since_at(s, jiff::Timestamp::now())
}

fn parse_since_at(s: &str, now: jiff::Timestamp) -> Result<jiff::Timestamp> {
    let s = s.trim();
    let fix = "give a date such as 2026-02-01, an RFC 3339 time, or an age such as 7d or 2w";
    let age = s
        .strip_suffix('d')
        .map(|n| (n, 24))
        .or_else(|| s.strip_suffix('w').map(|n| (n, 24 * 7)));
    if let Some((n, hours_per_unit)) = age {
        if let Ok(n) = n.parse::<i64>() {
            return n
                .checked_mul(hours_per_unit)
                .and_then(|h| jiff::Span::new().try_hours(h).ok())
                .and_then(|span| now.checked_sub(span).ok())
                .ok_or_else(|| {
                    usage(
                        format!("since {s:?} reaches before the earliest date thehook handles"),
                        fix,
                    )
                });
        }
    }
    crate::store::parse_date(s)
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| usage(format!("since {s:?} is not a date"), fix))
}

impl RecallOptions {
    /// The one constructor: `k` results (1 to [`MAX_K`], [`DEFAULT_K`] when
    /// `None`) of the `kinds` given (all when empty) dated `since`, searched
    /// in `mode`.
    pub fn checked(
        k: Option<i64>,
        kinds: Vec<ItemKind>,
        since: Option<jiff::Timestamp>,
        mode: Mode,
    ) -> Result<RecallOptions> {
        Ok(RecallOptions::new(checked_k(k)?, kinds, since, mode))
    }

    fn new(k: usize, kinds: Vec<ItemKind>, since: Option<jiff::Timestamp>, mode: Mode) -> Self {
        RecallOptions {
            k,
            filter: Filter {
                kinds,
                since,
                agents_only: false,
            },
            mode,
            lexical_weight: crate::env::lexical_weight().unwrap_or(LEXICAL_WEIGHT),
        }
    }

    /// The options as text fields give them (Node options, MCP arguments).
    pub fn parse(
        k: Option<i64>,
        types: &[String],
        since: Option<&str>,
        mode: Option<&str>,
    ) -> Result<RecallOptions> {
        // In the order the CLI reads its flags: k, types, since, mode.
        let k = checked_k(k)?;
        let kinds = types.iter().map(|t| parse_kind(t)).collect::<Result<_>>()?;
        let since = since.map(parse_since).transpose()?;
        let mode = mode.map(parse_mode).transpose()?.unwrap_or_default();
        Ok(RecallOptions::new(k, kinds, since, mode))
    }

    /// Answering an agent (the MCP tools, the hooks): withheld items are
    /// left out, never shown marked.
    pub fn for_agents(mut self) -> RecallOptions {
        self.filter.agents_only = true;
        self
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// A recall of `query`, which must not be blank.
    pub fn request(&self, query: impl Into<String>) -> Result<RecallRequest> {
        let query = query.into();
        check_query(&query)?;
        let RecallOptions {
            k,
            filter,
            mode,
            lexical_weight,
        } = self.clone();
        Ok(RecallRequest {
            query,
            k,
            filter,
            mode,
            lexical_weight,
        })
    }
}

/// Fails when there is nothing to search for.
fn check_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(usage(
            "the query is empty".into(),
            "say what to look for, e.g. \"how are tests organised\"",
        ));
    }
    Ok(())
}

/// How many results, when the caller gave a number: 1 to [`MAX_K`].
fn checked_k(k: Option<i64>) -> Result<usize> {
    match k {
        None => Ok(DEFAULT_K as usize),
        Some(k) if (1..=MAX_K as i64).contains(&k) => Ok(k as usize),
        Some(k) => Err(usage(
            format!("k {k} is out of range"),
            format!("ask for 1 to {MAX_K} results"),
        )),
    }
}

impl RememberRequest {
    /// `kind` defaults to `note`; it must be one of [`REMEMBERABLE`].
    pub fn new(text: impl Into<String>, kind: Option<ItemKind>) -> Result<RememberRequest> {
        let text = fact(text.into())?;
        let kind = kind.unwrap_or(DEFAULT_REMEMBERED);
        if !REMEMBERABLE.contains(&kind) {
            return Err(not_rememberable(kind.as_str()));
        }
        Ok(RememberRequest { text, kind })
    }

    /// The request as text fields give it (Node options, MCP arguments).
    pub fn parse(text: impl Into<String>, kind: Option<&str>) -> Result<RememberRequest> {
        let kind = kind.map(parse_rememberable_kind).transpose()?;
        RememberRequest::new(text, kind)
    }
}

/// A fact's text: never empty (remember and rewrite say so alike).
fn fact(text: String) -> Result<String> {
    if text.trim().is_empty() {
        return Err(usage(
            "the fact to remember is empty".into(),
            "say the fact, e.g. \"Tests live in __tests__/\"",
        ));
    }
    Ok(text)
}

/// The fewest characters of an id that name an item.
pub const MIN_ID_PREFIX: usize = 4;

impl ItemRef {
    /// An item named by the start of its id, as search results show it.
    pub fn parse(id_prefix: &str) -> Result<ItemRef> {
        let prefix = id_prefix.trim().to_ascii_lowercase();
        if prefix.len() < MIN_ID_PREFIX {
            return Err(usage(
                format!("`{prefix}` is too short to name an item"),
                fix!(
                    format!("give at least {MIN_ID_PREFIX} characters of the id that search results show ("),
                    Step::Recall,
                    ")"
                ),
            ));
        }
        Ok(ItemRef(prefix))
    }
}

impl RewriteRequest {
    /// The item `id_prefix` names, to be given the new `text` (trimmed).
    pub fn parse(id_prefix: &str, text: &str) -> Result<RewriteRequest> {
        Ok(RewriteRequest {
            item: ItemRef::parse(id_prefix)?,
            text: fact(text.trim().to_string())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(e: Error) -> String {
        e.to_string()
    }

    /// A recall as the Node options and the MCP arguments give it.
    fn parse_recall(
        query: &str,
        k: Option<i64>,
        types: &[String],
        since: Option<&str>,
        mode: Option<&str>,
    ) -> Result<RecallRequest> {
        RecallOptions::parse(k, types, since, mode)?.request(query)
    }

    #[test]
    fn a_blank_query_is_refused_when_the_request_is_made() {
        let options = RecallOptions::parse(None, &[], None, None).unwrap();
        for blank in ["", "  ", "\t"] {
            let e = options.request(blank).unwrap_err();
            assert!(problem(e).contains("the query is empty"), "{blank:?}");
        }
        assert_eq!(options.request("deploys").unwrap().query(), "deploys");
    }

    #[test]
    fn recall_defaults_and_limits_are_the_same_for_every_front_end() {
        let r = parse_recall("q", None, &[], None, None).unwrap();
        assert_eq!((r.k, r.mode, r.filter.is_empty()), (5, Mode::Hybrid, true));
        assert_eq!(
            parse_recall("q", Some(100), &[], None, None).unwrap().k,
            100
        );
        for bad in [0, 101, -3] {
            let e = parse_recall("q", Some(bad), &[], None, None).unwrap_err();
            assert!(problem(e).contains("ask for 1 to 100 results"), "{bad}");
        }
    }

    #[test]
    fn recall_fields_parse_by_name_and_refuse_unknown_names() {
        let r = parse_recall(
            "q",
            Some(3),
            &["adr".into(), "gotcha".into()],
            Some("2026-02-01"),
            Some("lexical"),
        )
        .unwrap();
        assert_eq!(r.filter.kinds, vec![ItemKind::Adr, ItemKind::Gotcha]);
        assert_eq!(r.filter.since.unwrap().to_string(), "2026-02-01T00:00:00Z");
        assert_eq!(r.mode, Mode::Lexical);
        let e = parse_recall("q", None, &["adrs!".into()], None, None).unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::Usage);
        assert!(problem(e).contains("summary, convention, adr, gotcha, history, note, text"));
        let e = parse_recall("q", None, &[], None, Some("fuzzy")).unwrap_err();
        assert!(problem(e).contains("hybrid, lexical, vector"));
    }

    #[test]
    fn since_takes_dates_times_and_ages() {
        let now: jiff::Timestamp = "2026-03-15T12:00:00Z".parse().unwrap();
        let at = |s: &str| parse_since_at(s, now).map(|t| t.to_string());
        assert_eq!(at("7d").unwrap(), "2026-03-08T12:00:00Z");
        assert_eq!(at(" 2w ").unwrap(), "2026-03-01T12:00:00Z");
        assert_eq!(at("2026-02-01").unwrap(), "2026-02-01T00:00:00Z");
        assert_eq!(at("2026-02-01T10:00:00Z").unwrap(), "2026-02-01T10:00:00Z");
        assert!(problem(at("yesterday").unwrap_err()).contains("7d or 2w"));
        assert!(problem(at("99999999999999w").unwrap_err()).contains("earliest date"));
    }

    #[test]
    fn only_four_kinds_can_be_remembered_and_note_is_the_default() {
        assert_eq!(
            RememberRequest::parse("x", None).unwrap().kind,
            ItemKind::Note
        );
        assert_eq!(
            RememberRequest::parse("x", Some("ADR")).unwrap().kind,
            ItemKind::Adr
        );
        let e = RememberRequest::parse("x", Some("summary")).unwrap_err();
        assert!(problem(e).contains("convention, adr, gotcha, note"));
        assert!(RememberRequest::parse("  ", None).is_err());
    }

    #[test]
    fn an_item_is_named_by_4_or_more_characters_and_a_fact_is_never_empty() {
        assert_eq!(ItemRef::parse(" AB12cd ").unwrap().as_str(), "ab12cd");
        let e = ItemRef::parse("ab1").unwrap_err();
        assert!(problem(e).contains("`ab1` is too short to name an item"));
        let r = RewriteRequest::parse("ab12", "  Tests live in tests/  ").unwrap();
        assert_eq!(
            (r.item.as_str(), r.text.as_str()),
            ("ab12", "Tests live in tests/")
        );
        // Remember and rewrite refuse an empty fact in the same words.
        let rewrite = problem(RewriteRequest::parse("ab12", "  ").unwrap_err());
        let remember = problem(RememberRequest::parse("  ", None).unwrap_err());
        assert_eq!(rewrite, remember);
    }

    #[test]
    fn every_agent_is_named_in_the_error() {
        assert_eq!(parse_agent("gemini-cli").unwrap(), Agent::Gemini);
        let e = parse_agent("emacs").unwrap_err();
        assert!(problem(e).contains("claude, cursor, codex, gemini"));
    }
}
