//! What memory is asked to do, as checked values. They are built only by
//! [`crate::front_door`], which checks every input once; memory takes them
//! as given. Their fields are private to this crate, so a front end can
//! neither build one without the checks nor change a value after them.

use crate::memory::index::Filter;
use crate::memory::rank::fusion::Mode;
use crate::store::item::ItemKind;

/// One recall, checked: a query that is not blank, `k` in range. Built
/// only by [`crate::front_door`]'s constructors; read through its accessors.
#[derive(Debug, Clone)]
pub struct RecallRequest {
    pub(crate) query: String,
    pub(crate) k: usize,
    pub(crate) filter: Filter,
    pub(crate) mode: Mode,
    /// Weight of BM25 in hybrid fusion ([`crate::memory::rank::fusion::LEXICAL_WEIGHT`] unless
    /// `THEHOOK_LEXICAL_WEIGHT` says otherwise).
    pub(crate) lexical_weight: f32,
}

/// How to recall, checked once for any number of queries: `k`, the filter
/// and the mode. [`RecallOptions::request`] adds a query.
#[derive(Debug, Clone)]
pub struct RecallOptions {
    pub(crate) k: usize,
    pub(crate) filter: Filter,
    pub(crate) mode: Mode,
    pub(crate) lexical_weight: f32,
}

impl RecallRequest {
    pub fn query(&self) -> &str {
        &self.query
    }
    pub fn mode(&self) -> Mode {
        self.mode
    }
}

/// One fact to remember, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RememberRequest {
    pub(crate) text: String,
    pub(crate) kind: ItemKind,
}

/// An item named by the start of its id: at least
/// [`crate::front_door::MIN_ID_PREFIX`] characters, lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemRef(pub(crate) String);

impl ItemRef {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An item's new text, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewriteRequest {
    pub(crate) item: ItemRef,
    pub(crate) text: String,
}
