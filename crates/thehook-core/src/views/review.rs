//! What waits for a person: items and titles a safety rule withholds (with
//! who committed them), stale items (a cited path or symbol gone), and
//! knowledge that says nearly what other knowledge says. The decisions
//! (release, confirm, rewrite, forget) are [`Memory`]'s own calls.

use serde::Serialize;

use crate::error::Result;
use crate::memory::withheld::WithheldEntry;
use crate::memory::Memory;
use crate::store::item::Item;

#[derive(Debug, Clone, Serialize)]
pub struct ReviewPage {
    pub withheld: Vec<WithheldEntry>,
    pub stale: Vec<StaleItem>,
    pub duplicates: Vec<DuplicatePair>,
}

/// An item that cites what is gone, and what.
#[derive(Debug, Clone, Serialize)]
pub struct StaleItem {
    pub item: Item,
    pub citation: String,
    pub stale: String,
}

/// Two items of one kind that say nearly the same.
#[derive(Debug, Clone, Serialize)]
pub struct DuplicatePair {
    pub first: Item,
    pub second: Item,
}

/// Withheld and stale items, as `thehook review` lists them.
pub fn waiting(memory: &Memory) -> Result<(Vec<WithheldEntry>, Vec<StaleItem>)> {
    let stale = memory
        .stale_items()?
        .into_iter()
        .map(|(item, stale)| StaleItem {
            citation: item.citation(),
            item,
            stale,
        })
        .collect();
    Ok((memory.withheld()?, stale))
}

/// Everything that waits, near-duplicates too.
pub fn review(memory: &Memory) -> Result<ReviewPage> {
    let (withheld, stale) = waiting(memory)?;
    let duplicates = memory
        .near_duplicates()?
        .into_iter()
        .map(|(first, second)| DuplicatePair { first, second })
        .collect();
    Ok(ReviewPage {
        withheld,
        stale,
        duplicates,
    })
}
