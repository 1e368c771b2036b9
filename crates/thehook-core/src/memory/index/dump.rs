//! The whole index as text, one database after another, for snapshot tests
//! (arroy's own tests snapshot its storage the same way). Mtimes are shown
//! as given, so tests set them.

use std::fmt::Write;

use arroy::distances::BinaryQuantizedCosine;

use super::{decode_postings, Index, TREES_INDEX};
use crate::memory::session_lookup::SessionKey;

impl Index {
    /// Every database, in key order.
    pub(crate) fn dump(&self) -> String {
        let rtxn = self.env.read_txn().expect("read transaction");
        let mut out = String::new();
        let header = self.dbs.header.get(&rtxn, "header").expect("header");
        writeln!(out, "header: {header:?}").unwrap();

        out.push_str("items:\n");
        for entry in self.dbs.items.iter(&rtxn).expect("items") {
            let (key, item) = entry.expect("item");
            // A verdict shows as its rule: scores and reasons vary.
            let withheld = item
                .withheld
                .as_ref()
                .map(|w| format!(" withheld:{}", w.rule))
                .unwrap_or_default();
            writeln!(
                out,
                "  {key}: {} {}:{}-{} {} {} {:?}{withheld}",
                item.kind, item.path, item.line_start, item.line_end, item.date, item.id, item.text
            )
            .unwrap();
        }
        out.push_str("ids:\n");
        for entry in self.dbs.ids.iter(&rtxn).expect("ids") {
            let (id, key) = entry.expect("id");
            writeln!(out, "  {id} -> {key}").unwrap();
        }
        out.push_str("files:\n");
        for entry in self.dbs.files.iter(&rtxn).expect("files") {
            let (rel, r) = entry.expect("file");
            let mtime = match r.mtime_ns {
                i128::MIN => "smudged".to_string(),
                ns => jiff::Timestamp::from_nanosecond(ns)
                    .expect("mtime")
                    .to_string(),
            };
            let asks = if r.asks { ", asks" } else { "" };
            writeln!(
                out,
                "  {rel}: {} bytes, mtime {mtime}, keys {:?}{asks}",
                r.size, r.keys
            )
            .unwrap();
        }
        out.push_str("postings:\n");
        for entry in self.dbs.postings.iter(&rtxn).expect("postings") {
            let (term, bytes) = entry.expect("posting");
            writeln!(out, "  {term}: {:?}", decode_postings(bytes)).unwrap();
        }
        out.push_str("recent:\n");
        for entry in self.dbs.recent.iter(&rtxn).expect("recent") {
            let (k, key) = entry.expect("recent entry");
            writeln!(out, "  {} -> {key}", k.replace('\0', " | ")).unwrap();
        }
        out.push_str("replies:\n");
        for entry in self.dbs.replies.iter(&rtxn).expect("replies") {
            let (question, reply) = entry.expect("reply");
            writeln!(out, "  {question} -> {reply}").unwrap();
        }
        out.push_str("paths:\n");
        for entry in self.dbs.paths.iter(&rtxn).expect("paths") {
            let (link, ()) = entry.expect("path link");
            // A symbol's links start with NUL: shown as `symbol signToken`.
            let link = match link.strip_prefix('\0') {
                Some(symbol) => format!("symbol {symbol}"),
                None => link.to_string(),
            };
            writeln!(out, "  {}", link.replace('\0', " -> ")).unwrap();
        }
        out.push_str("session_dates:\n");
        for entry in self.dbs.session_dates.iter(&rtxn).expect("session dates") {
            let (key, value) = entry.expect("session date");
            let value = shown(postcard::from_bytes(value).expect("a session key"));
            writeln!(out, "  {} = {value}", key.replace('\0', " | ")).unwrap();
        }
        out.push_str("session_keys:\n");
        for entry in self.dbs.session_keys.iter(&rtxn).expect("session keys") {
            let (key, value) = entry.expect("session key");
            let value = match key.as_bytes().first() {
                Some(b't') => format!(
                    " = {}",
                    u32::from_le_bytes(value.try_into().expect("a count"))
                ),
                Some(b'b' | b'p') => {
                    format!(" = {}", shown(postcard::from_bytes(value).expect("a key")))
                }
                _ => String::new(),
            };
            writeln!(out, "  {}{value}", key.replace('\0', " | ")).unwrap();
        }
        match arroy::Reader::<BinaryQuantizedCosine>::open(&rtxn, TREES_INDEX, self.dbs.trees) {
            Ok(reader) => {
                let ids: Vec<u32> = reader.item_ids().iter().collect();
                writeln!(out, "trees: {} over items {ids:?}", reader.n_trees()).unwrap();
            }
            Err(arroy::Error::MissingMetadata(_)) => out.push_str("trees: none\n"),
            Err(e) => panic!("trees: {e}"),
        }
        let mut dims = std::collections::BTreeSet::new();
        let mut keys = Vec::new();
        for entry in self.dbs.vectors.iter(&rtxn).expect("vectors") {
            let (key, bytes) = entry.expect("vector");
            dims.insert(bytes.len() / 2);
            keys.push(key);
        }
        match keys.is_empty() {
            true => out.push_str("vectors: none\n"),
            false => {
                let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
                writeln!(out, "vectors: {} dims, items {keys:?}", dims.join("/")).unwrap()
            }
        }
        out
    }
}

/// A session's key as a dump line shows it after its date and path.
fn shown(key: SessionKey) -> String {
    let or_none = |s: Option<String>| s.unwrap_or_else(|| "-".into());
    format!(
        "id {}, branch {}",
        or_none(key.session_id),
        or_none(key.branch)
    )
}
