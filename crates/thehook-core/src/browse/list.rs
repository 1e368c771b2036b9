//! Finding this project's past sessions: every agent's transcript store
//! (through the sweep's search) and the redacted copies in
//! `.thehook/failed/`, listed newest first with their subagents.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::cache::{stamp, ListingCache, Stamp};
use super::lines::lines;
pub use super::listed::Listed;
use crate::agents::Agent;
use crate::error::{fix, Error, Result, SessionMiss, Step};
use crate::project::Project;
use crate::text::redact::{redact, Findings};
use crate::transcript::redact_transcript;
use crate::transcript::{clip_chars, first_line, Block, Role, Transcript};

/// Characters of a summary in the listing.
const SUMMARY: usize = 100;

/// A transcript of this project, before it is read.
#[derive(Debug, Clone)]
pub struct Source {
    pub agent: Agent,
    pub path: PathBuf,
    /// `agent-<id>` for a subagent's own file.
    pub id: String,
    /// A redacted copy kept in `.thehook/failed/` (the original may be gone).
    pub failed_copy: bool,
}

/// Which sessions to list. Built by [`ListOptions::new`] or
/// [`ListOptions::parse`], which give `limit` its default
/// ([`crate::front_door::DEFAULT_SESSION_LIMIT`]).
#[derive(Debug, Clone)]
pub struct ListOptions {
    pub(crate) agent: Option<Agent>,
    /// Sessions active on or after this time.
    pub(crate) since: Option<jiff::Timestamp>,
    /// At most this many sessions (0: all).
    pub(crate) limit: usize,
}

impl ListOptions {
    /// `limit` defaults to [`crate::front_door::DEFAULT_SESSION_LIMIT`]
    /// (0 lists all).
    pub fn new(
        agent: Option<Agent>,
        since: Option<jiff::Timestamp>,
        limit: Option<usize>,
    ) -> ListOptions {
        ListOptions {
            agent,
            since,
            limit: limit.unwrap_or(crate::front_door::DEFAULT_SESSION_LIMIT),
        }
    }

    /// The options as text fields give them (MCP arguments).
    pub fn parse(
        agent: Option<&str>,
        since: Option<&str>,
        limit: Option<usize>,
    ) -> crate::error::Result<ListOptions> {
        Ok(ListOptions::new(
            agent.map(crate::front_door::parse_agent).transpose()?,
            since.map(crate::front_door::parse_since).transpose()?,
            limit,
        ))
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Listing {
    pub sessions: Vec<Listed>,
    /// Sessions left out by the limit.
    pub more: usize,
    /// Transcripts that could not be read, and why.
    pub unreadable: Vec<String>,
}

/// The project's sessions in every store, without reading them: the
/// agents' stores first, then the failed copies of sessions they no longer
/// hold. Subagent files are not included (see [`subagent_sources`]).
pub fn sources(project: &Project, home: &Path) -> Vec<Source> {
    let mut out: Vec<Source> = crate::agents::project_transcripts(project.root(), home, &|_| true)
        .into_iter()
        .map(|f| Source {
            agent: f.agent,
            path: f.path,
            id: f.session_id,
            failed_copy: false,
        })
        .collect();
    for (_, job) in crate::capture::failed_jobs(project) {
        let copy = project.failed_dir().join(format!(
            "{}.jsonl",
            crate::capture::queue::file_stem(&job.session_id)
        ));
        if copy.is_file() && !out.iter().any(|s| s.id == job.session_id) {
            out.push(Source {
                agent: job.agent,
                path: copy,
                id: job.session_id,
                failed_copy: true,
            });
        }
    }
    out
}

/// The subagents' own files of a Claude Code session.
pub fn subagent_sources(session: &Source) -> Vec<Source> {
    if session.failed_copy {
        return Vec::new();
    }
    crate::agents::subagent_transcripts(session.agent, &session.path, &session.id)
        .into_iter()
        .map(|path| Source {
            agent: session.agent,
            id: path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            path,
            failed_copy: false,
        })
        .collect()
}

/// Lists the project's sessions, newest first.
pub fn list(project: &Project, home: &Path, o: &ListOptions) -> Listing {
    let titles: HashMap<String, String> = crate::store::session_files(project)
        .into_iter()
        .filter_map(|f| Some((f.front_matter.session_id?, f.front_matter.title?)))
        .collect();
    let mut cache = ListingCache::load(project);
    let mut listing = list_sources(sources(project, home), &titles, o, &mut cache);
    cache.save();
    for session in &mut listing.sessions {
        session.given = crate::given::kept::load(project, &session.id).map(|u| u.counts());
    }
    listing
}

/// Lists `sources`, newest first; `titles` are summaries by session id.
/// Transcripts unchanged since `cache` saw them are not read again.
pub(super) fn list_sources(
    sources: Vec<Source>,
    titles: &HashMap<String, String>,
    o: &ListOptions,
    cache: &mut ListingCache,
) -> Listing {
    cache.retain(&sources.iter().map(|s| s.path.as_path()).collect());
    let since = o.since.map(std::time::SystemTime::from);
    let chosen: Vec<Source> = sources
        .into_iter()
        .filter(|s| o.agent.is_none_or(|a| a == s.agent))
        .filter(|s| {
            since.is_none_or(|since| {
                std::fs::metadata(&s.path)
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t >= since)
            })
        })
        .collect();
    let read: Vec<(Option<Stamp>, bool, Result<Listed>)> = chosen
        .par_iter()
        .map(|s| {
            let stamp = stamp(&s.path);
            if let Some(hit) = stamp.and_then(|st| cache.get(&s.path, st)) {
                return (stamp, true, Ok(hit));
            }
            (stamp, false, open(s).map(|t| listed(s, &t)))
        })
        .collect();
    let mut listing = Listing::default();
    for (source, (stamp, hit, r)) in chosen.iter().zip(read) {
        match r {
            Ok(mut l) => {
                if let (Some(stamp), false) = (stamp, hit) {
                    cache.put(source.path.clone(), stamp, l.clone());
                }
                // A captured session's title is the best summary there is.
                if let Some(title) = titles.get(&l.id) {
                    l.summary = one_line_summary(&redact(title));
                }
                listing.sessions.push(l);
            }
            Err(e) => listing.unreadable.push(e.to_string()),
        }
    }
    // Newest first; sessions without a time last.
    listing
        .sessions
        .sort_by(|a, b| b.started.cmp(&a.started).then_with(|| a.id.cmp(&b.id)));
    if o.limit > 0 && listing.sessions.len() > o.limit {
        listing.more = listing.sessions.len() - o.limit;
        listing.sessions.truncate(o.limit);
    }
    listing
}

/// Reads a transcript with every secret redacted.
pub fn open(source: &Source) -> Result<Transcript> {
    let mut t = crate::agents::read::load(&source.path)?;
    redact_transcript(&mut t, &mut Findings::default());
    Ok(t)
}

fn listed(source: &Source, t: &Transcript) -> Listed {
    let summary = t
        .title
        .clone()
        .or_else(|| opening(t).map(str::to_string))
        .unwrap_or_default();
    // The Task calls name what each subagent was for.
    let tasks: HashMap<String, String> = t
        .tool_calls()
        .filter_map(|c| {
            let id = super::compact::subagent_id(&c.result.as_ref()?.text)?;
            let description = c.input.get("description")?.as_str()?;
            Some((format!("agent-{id}"), description.to_string()))
        })
        .collect();
    let files: HashMap<String, PathBuf> = subagent_sources(source)
        .into_iter()
        .map(|s| (s.id, s.path))
        .collect();
    let subagents = t
        .subagents
        .iter()
        .map(|sub| {
            let id = format!("agent-{}", sub.agent_id.as_deref().unwrap_or("unknown"));
            let summary = tasks
                .get(&id)
                .map(String::as_str)
                .or_else(|| opening(sub))
                .unwrap_or_default()
                .to_string();
            Listed {
                path: files.get(&id).cloned().unwrap_or_default(),
                id,
                agent: source.agent,
                started: sub.started.clone(),
                lines: lines(sub).len(),
                summary: one_line_summary(&summary),
                failed_copy: false,
                subagents: Vec::new(),
                given: None,
            }
        })
        .collect();
    Listed {
        id: source.id.clone(),
        agent: source.agent,
        started: t.started.clone().or_else(|| file_time(&source.path)),
        lines: lines(t).len(),
        summary: one_line_summary(&summary),
        path: source.path.clone(),
        failed_copy: source.failed_copy,
        subagents,
        given: None,
    }
}

fn file_time(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    Some(jiff::Timestamp::try_from(modified).ok()?.to_string())
}

/// The first thing said to the agent (a subagent's instruction counts).
fn opening(t: &Transcript) -> Option<&str> {
    t.first_prompt().or_else(|| {
        t.entries
            .iter()
            .filter(|e| e.role == Role::User)
            .flat_map(|e| &e.blocks)
            .find_map(|b| match b {
                Block::Text { text } if !text.trim().is_empty() => Some(text.as_str()),
                _ => None,
            })
    })
}

fn one_line_summary(s: &str) -> String {
    clip_chars(&first_line(s), SUMMARY)
}

/// Finds the session (or subagent) whose id starts with `query`. With
/// `paths`, `query` may also name a transcript file, if it is one of this
/// project's or lies inside the project: `read` is allowed to run without a
/// prompt, so it must not open other projects' transcripts.
pub fn find(project: &Project, home: &Path, query: &str, paths: bool) -> Result<Source> {
    let sessions = sources(project, home);
    let as_path = Path::new(query);
    if paths && as_path.is_file() {
        let wanted = as_path.canonicalize().ok();
        let known = sessions
            .iter()
            .cloned()
            .chain(sessions.iter().flat_map(subagent_sources))
            .find(|s| s.path.canonicalize().ok() == wanted);
        if let Some(source) = known {
            return Ok(source);
        }
        let root = project.root().canonicalize().ok();
        if wanted
            .as_ref()
            .zip(root)
            .is_some_and(|(w, r)| w.starts_with(r))
        {
            return Ok(Source {
                agent: crate::agents::read::agent_of_file(as_path),
                path: as_path.to_path_buf(),
                id: query.to_string(),
                failed_copy: false,
            });
        }
        return Err(Error::SessionNotFound {
            miss: SessionMiss::NotOfProject {
                file: query.to_string(),
                project: project.root().to_path_buf(),
            },
            fix: fix!(Step::ProjectDir, ", or copy the file into this project"),
        });
    }
    let query = query.trim();
    if query.is_empty() {
        return Err(Error::Usage {
            problem: "no session id given".into(),
            source: None,
            fix: fix!(
                "give the start of an id as the session list shows it (",
                Step::Sessions,
                ")"
            ),
        });
    }
    let mut matches: Vec<Source> = sessions
        .iter()
        .filter(|s| s.id.starts_with(query))
        .cloned()
        .collect();
    // Subagents only when no session matched: finding them opens files.
    if matches.is_empty() {
        matches = sessions
            .iter()
            .flat_map(subagent_sources)
            .filter(|sub| {
                sub.id.starts_with(query) || sub.id.trim_start_matches("agent-").starts_with(query)
            })
            .collect();
    }
    match matches.len() {
        1 => Ok(matches.remove(0)),
        0 => Err(Error::SessionNotFound {
            miss: SessionMiss::NoMatch {
                query: query.to_string(),
                searched: sessions.len(),
            },
            fix: fix!(Step::Sessions, " to see the ids"),
        }),
        total => Err(Error::SessionNotFound {
            miss: SessionMiss::Ambiguous {
                query: query.to_string(),
                candidates: matches
                    .into_iter()
                    .take(10)
                    .map(|s| (s.id, s.path))
                    .collect(),
                total,
            },
            fix: "give more of the id".into(),
        }),
    }
}
