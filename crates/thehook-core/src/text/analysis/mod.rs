//! What a text holds for search, below the index and ranking that use it:
//! its terms (Unicode words, stop words dropped, stemmed) and BM25's
//! formula ([`lexical`]), and the dates it talks about ([`when`]).

pub(crate) mod lexical;
pub(crate) mod when;
