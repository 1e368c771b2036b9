//! SHA-256 as lowercase hex: item ids, cache keys, and
//! the hashes agents compute (Codex's hook trust, Gemini's project id).

use sha2::{Digest, Sha256};

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
