//! What the learned check reads of each text, for its training
//! (`bench/injection/train.py`): one JSON line in (`{"text": ...}`), one
//! out (`{"features": [...], "vector": [...]}`), the vector from the same
//! model and code the index embeds items with, the features from
//! `text::safety::learned::features` on the text's visible characters.
//!
//! ```text
//! cargo run --release -p thehook-core --example injection_features -- .assets \
//!     < texts.jsonl > read.jsonl
//! ```
//!
//! `--items <project>` instead lists a project's memory items as the index
//! parses them (`{"text", "id", "path", "line", "type", "date", "rule"}`,
//! `rule` being the rules' verdict), the real memory the check must pass.

use std::io::{BufRead, Write};

use thehook_core::config::Config;
use thehook_core::model::{embed_all, locate, SearchPaths};
use thehook_core::store::{list_sources, read_source};
use thehook_core::text::safety::{learned, strip_hidden};
use thehook_core::Project;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--items") {
        return list_items(
            args.get(1)
                .expect("usage: injection_features --items <project>"),
        );
    }
    let assets = args
        .first()
        .expect("usage: injection_features <assets folder>")
        .clone();
    let texts: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map(|line| {
            let line = line.expect("stdin reads");
            let value: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
            let text = value["text"].as_str().expect("a \"text\" string");
            strip_hidden(text).into_owned()
        })
        .collect();
    let paths = SearchPaths {
        cache: Some(assets.into()),
        no_embedding_cache: true,
        ..SearchPaths::default()
    };
    let availability = locate(&Config::default(), &paths);
    let as_str: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut vectors = vec![Vec::new(); texts.len()];
    embed_all(&availability, &as_str, &|_| {}, &mut |chunk, embedded| {
        for (&i, vector) in chunk.iter().zip(embedded) {
            vectors[i] = vector;
        }
    })
    .expect("the model embeds");
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (text, vector) in texts.iter().zip(&vectors) {
        let line = serde_json::json!({ "features": learned::features(text), "vector": vector });
        writeln!(out, "{line}").expect("stdout writes");
    }
}

fn list_items(root: &str) {
    let project = Project::at(std::path::Path::new(root));
    let mut warnings = Vec::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for file in list_sources(&project, &mut warnings).files {
        let parsed = read_source(&file).expect("a memory file reads");
        for item in parsed.items {
            let line = serde_json::json!({
                "text": item.text,
                "id": item.id,
                "path": item.path,
                "line": item.line_start,
                "type": item.kind,
                "date": item.date,
                "rule": item.withheld.map(|w| w.rule),
            });
            writeln!(out, "{line}").expect("stdout writes");
        }
    }
}
