//! The decision on a line of memory that asks for an action on the machine
//! ([`super::actions`]): the words cannot tell "install `fixture-loader`
//! first" the convention from the same line planted, so where it came from
//! and what the repository says decide. It is given to agents when
//!
//! 1. the repository vouches for what it names ([`super::corroborate`]:
//!    a package a manifest lists, a host its configuration names, a script
//!    it defines), or
//! 2. a person the project trusts wrote it: git says a trusted author
//!    committed each of its lines, or nobody committed it yet (written on
//!    this machine) ([`super::trust`]), or
//! 3. such a person confirmed its text ([`super::confirmed`]).
//!
//! Otherwise it is withheld as [`Rule::Unverified`], with the reason and
//! where it came from. Moving a secret and weakening a control are never
//! vouched for by the repository: only a trusted author or a confirmation
//! lets them through.
//!
//! Judged when a file is parsed, like the rules; git and the build files
//! are read only for a file holding such a line, once per sync. What the
//! verdict depends on beside the file (the configuration's `trust.authors`,
//! the confirmations) is stamped in the index's header: when either
//! changes, every file holding an action line is judged again
//! ([`trust_stamp`]). Build files and the history are read again when the
//! memory file changes, and at `thehook reindex`.

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use crate::memory::item::Item;
use crate::memory::store::{stat, Stamp};
use crate::project::{Project, CONFIG_FILE};
use crate::text::safety::Withheld;

use super::actions::{action_of, Action, Target};
use super::confirmed;
use super::corroborate::{files_under, Corroboration, RepoFacts};
use super::released::Released;
use super::trust::{origins, Origin, Origins, TrustedAuthors};

/// The files whose change makes every action line be judged again.
const TRUST_INPUTS: [&str; 2] = [CONFIG_FILE, confirmed::FILE];

/// The stamp of what a verdict depends on beside the file itself; `None`
/// when one of them changed too recently to trust its mtime.
pub(crate) fn trust_stamp(project: &Project) -> Option<Stamp> {
    let entries = TRUST_INPUTS
        .iter()
        .map(|rel| {
            let (size, mtime) = stat(&project.root().join(rel));
            (rel.to_string(), size, mtime)
        })
        .collect();
    Stamp::new(entries, jiff::Timestamp::now().as_nanosecond())
}

/// Judges the action lines of the files one sync parses, reading git and
/// the build files at most once each, and only when a line needs them.
pub(crate) struct Verifier<'a> {
    root: &'a Path,
    /// `trust.authors`; empty: found in the history.
    configured: &'a [String],
    trusted: OnceLock<TrustedAuthors>,
    facts: OnceLock<RepoFacts>,
    confirmed: OnceLock<HashSet<String>>,
}

impl<'a> Verifier<'a> {
    pub(crate) fn new(root: &'a Path, configured: &'a [String]) -> Self {
        Verifier {
            root,
            configured,
            trusted: OnceLock::new(),
            facts: OnceLock::new(),
            confirmed: OnceLock::new(),
        }
    }

    /// Withholds the items of the file `rel` that ask for an action no one
    /// vouches for. Items a rule withholds already, or a person released,
    /// are left as they are. Says whether any item asks for an action (the
    /// file is then judged again when the trust inputs change).
    pub(crate) fn judge_file(&self, rel: &str, items: &mut [Item], released: &Released) -> bool {
        let mut asks = false;
        let mut lines: Option<Origins> = None;
        for item in items.iter_mut() {
            let Some(action) = action_of(&item.text) else {
                continue;
            };
            asks = true;
            if item.withheld.is_some() || released.contains(&item.id) {
                continue;
            }
            let corroboration = self.facts().judge(&action);
            if corroboration.vouched() {
                continue;
            }
            let lines = lines.get_or_insert_with(|| origins(self.root, rel, || self.trusted()));
            let origin = origin_of(lines, item.line_start, item.line_end);
            if origin.trusted() || self.confirmed().contains(&confirmed::key_of(&item.text)) {
                continue;
            }
            item.withheld = Some(Withheld::unverified(
                &action.matched,
                reason(&action, &corroboration, &origin),
            ));
        }
        asks
    }

    fn trusted(&self) -> &TrustedAuthors {
        self.trusted
            .get_or_init(|| TrustedAuthors::of(self.root, self.configured))
    }

    fn facts(&self) -> &RepoFacts {
        self.facts
            .get_or_init(|| RepoFacts::read(self.root, files_under(self.root)))
    }

    fn confirmed(&self) -> &HashSet<String> {
        self.confirmed
            .get_or_init(|| confirmed::trusted_keys(self.root, || self.trusted()))
    }
}

/// The origin of an item's lines: the first line not trusted, else the
/// first line's. A line a stranger appended to a trusted item is theirs.
fn origin_of(lines: &Origins, start: usize, end: usize) -> Origin {
    let all = (start..=end.max(start)).map(|n| lines.of_line(n));
    let mut first = None;
    for origin in all {
        if !origin.trusted() {
            return origin;
        }
        first.get_or_insert(origin);
    }
    first.unwrap_or(Origin::Local)
}

/// Why the item is withheld, and where it came from, in a sentence.
fn reason(action: &Action, corroboration: &Corroboration, origin: &Origin) -> String {
    let asks = match corroboration {
        Corroboration::Unvouched { missing } if !missing.is_empty() => {
            let names: Vec<String> = missing.iter().map(describe).collect();
            format!(
                "asks to {} {}, which no build file names",
                action.family.verb(),
                names.join(", ")
            )
        }
        _ => format!(
            "asks to {}, which no build file can vouch for",
            action.family.verb()
        ),
    };
    let from = match origin {
        Origin::Committed { commit, author, .. } => format!(
            "committed by {author} in {}, not an author the project trusts (trust.authors)",
            &commit[..commit.len().min(8)]
        ),
        Origin::Unknown { why } => format!("its author is unknown: {why}"),
        Origin::Local => "written on this machine".into(),
    };
    format!("{asks}; {from}")
}

fn describe(target: &Target) -> String {
    match target {
        Target::Package(name) => format!("the package `{name}`"),
        Target::Host(host) => format!("the host `{host}`"),
        Target::Image(image) => format!("the image `{image}`"),
        Target::Program(program) => format!("`{program}`"),
        Target::Script(script) => format!("the script `{script}`"),
        Target::Toolchain(tool) => format!("`{tool}`"),
    }
}
