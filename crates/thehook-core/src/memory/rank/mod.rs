//! Ranking what the index finds: the query's vector ([`query_model`]), and
//! BM25 and vector candidates fused with recency, dates and near-duplicates
//! folded ([`fusion`]), and what agents' use of a line says of it ([`tally`]).

pub mod fusion;
pub(crate) mod query_model;
pub mod tally;

pub use fusion::{Hit, Mode};
