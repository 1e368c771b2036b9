//! What the repository says about items, beside their text: an item is
//! stale when what it cites is gone ([`stale`]), about a file git saw
//! renamed ([`renames`]), or released by a person after a safety rule
//! withheld it ([`released`]); an action it asks for ([`actions`]) is
//! vouched for by the project's build files or not ([`corroborate`]); its
//! lines came from authors the project trusts or not ([`trust`]); and from
//! these, whether an action line is given to agents ([`verify`]), unless a
//! person confirmed it ([`confirmed`]).

pub mod actions;
pub mod confirmed;
pub mod corroborate;
pub(crate) mod released;
pub(crate) mod renames;
pub(crate) mod stale;
pub(crate) mod stranger;
pub mod trust;
pub(crate) mod verify;

/// [`stranger::concern`], for the examples that measure it.
pub fn stranger_concern(text: &str, facts: &corroborate::RepoFacts) -> Option<String> {
    stranger::concern(text, facts)
}
