//! End-to-end tests of the `thehook` binary on temp projects, with the real
//! model, real LMDB and real markdown.

use crate::common::{hit_ids, hit_texts, Project};

/// How far a similarity may move between the two engines: both run the
/// int8 products in integers, but last-digit differences in the floats
/// around them move values across quantization steps (0.024 measured).
const SAME_ARITHMETIC: f64 = 0.04;

#[test]
fn recall_cites_path_and_line_for_every_hit() {
    let p = Project::demo();
    let out = p.ok(&["recall", "why did we pick jose for tokens"]);
    let citations: Vec<&str> = out.lines().filter(|l| !l.starts_with(' ')).collect();
    assert!(!citations.is_empty(), "{out}");
    for line in citations {
        let citation = line.split_whitespace().next().unwrap();
        let (path, lineno) = citation.rsplit_once(':').unwrap();
        let lineno: usize = lineno.parse().unwrap();
        let text = p.read(path);
        assert!(
            lineno >= 1 && lineno <= text.lines().count(),
            "{citation} is not a line of {path}"
        );
    }
    assert!(
        out.contains("jose"),
        "the jose decision should be found: {out}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn recall_json_has_the_documented_fields() {
    let p = Project::demo();
    let answer = p.recall_json("flaky checkout test", &["-k", "3"]);
    assert_eq!(answer["query"], "flaky checkout test");
    assert_eq!(answer["mode"], "hybrid");
    let hits = answer["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 3);
    for hit in hits {
        for field in [
            "id",
            "type",
            "text",
            "path",
            "line_start",
            "line_end",
            "date",
            "citation",
            "score",
        ] {
            assert!(!hit[field].is_null(), "{field} missing in {hit}");
        }
        let citation = format!("{}:{}", hit["path"].as_str().unwrap(), hit["line_start"]);
        assert_eq!(hit["citation"], citation.as_str());
    }
    assert!(hit_texts(&answer)
        .iter()
        .any(|t| t.contains("flaky checkout")));
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn hybrid_finds_paraphrases_that_share_no_words() {
    let p = Project::demo();
    // No shared terms with "Tests are colocated in __tests__/ next to the source files".
    let answer = p.recall_json("where should unit specs be placed", &["-k", "3"]);
    assert!(
        hit_texts(&answer).iter().any(|t| t.contains("__tests__")),
        "vector search should find the test-location convention: {answer}"
    );
    let lexical = p.recall_json(
        "where should unit specs be placed",
        &["-k", "3", "--mode", "lexical"],
    );
    assert!(!hit_texts(&lexical).iter().any(|t| t.contains("__tests__")));
}

#[test]
fn nothing_found_exits_1_and_usage_errors_exit_2() {
    let p = Project::demo();
    let (code, out, err) = p.run(&["recall", "zyxxyq qqqzzz", "--mode", "lexical"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("nothing found"), "{err}");

    for bad in [
        vec!["recall", "x", "-k", "0"],
        vec!["recall", "x", "--type", "banana"],
        vec!["recall", "x", "--since", "last tuesday"],
        vec!["recall", "x", "--since", "999999999999999999w"],
        vec!["recall"],
        vec!["frobnicate"],
    ] {
        let (code, _, err) = p.run(&bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert!(err.contains("error"), "{bad:?}: {err}");
    }
    let (code, _, err) = p.run(&["recall", "   "]);
    assert_eq!(code, 2);
    assert!(err.contains("the query is empty"), "{err}");
}

#[test]
fn type_and_since_filters() {
    let p = Project::demo();
    let gotchas = p.recall_json("tests", &["--type", "gotcha", "-k", "10"]);
    assert!(!hit_ids(&gotchas).is_empty());
    assert!(gotchas["hits"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["type"] == "gotcha"));

    let recent = p.recall_json("search", &["--since", "2026-03-01", "-k", "20"]);
    let dates: Vec<&str> = recent["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["date"].as_str().unwrap())
        .collect();
    assert!(!dates.is_empty());
    assert!(dates.iter().all(|d| *d >= "2026-03-01"), "{dates:?}");
}

#[test]
fn stdin_answers_one_json_line_per_query() {
    let p = Project::demo();
    let out = p
        .cmd(&["recall", "--stdin", "--json", "-k", "2"])
        .write_stdin("staging database reset\n\nGIN index production\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(hit_texts(&lines[0])[0].contains("staging database"));
    assert!(lines[1]["error"].as_str().unwrap().contains("empty"));
    assert!(hit_texts(&lines[2])[0].contains("GIN"));
}

#[test]
fn remember_is_visible_at_once_and_forget_removes_it_everywhere() {
    let p = Project::demo();
    let out = p.ok(&[
        "remember",
        "The CDN caches /api/products for 60 seconds",
        "--type",
        "gotcha",
        "--json",
    ]);
    let item: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(item["type"], "gotcha");
    assert_eq!(item["path"], ".thehook/knowledge/notes.md");
    let id = item["id"].as_str().unwrap().to_string();
    assert!(p.read(".thehook/knowledge/notes.md").contains("`[gotcha]`"));

    let answer = p.recall_json("how long does the CDN cache products", &["-k", "1"]);
    assert_eq!(hit_ids(&answer), std::slice::from_ref(&id));

    let out = p.ok(&["forget", &id[..6]]);
    assert!(out.contains("forgot"), "{out}");
    assert!(!p.read(".thehook/knowledge/notes.md").contains("CDN"));
    let answer = p.recall_json("how long does the CDN cache products", &["-k", "5"]);
    assert!(!hit_ids(&answer).contains(&id));
    // The other notes are untouched.
    assert!(p
        .read(".thehook/knowledge/notes.md")
        .contains("staging database is reset"));
}

#[test]
fn forget_unknown_or_ambiguous_ids_explains() {
    let p = Project::demo();
    let (code, _, err) = p.run(&["forget", "ffffffffffff"]);
    assert_eq!(code, 1);
    assert!(err.contains("no item has an id starting with"), "{err}");
    let (code, _, err) = p.run(&["forget", "ab"]);
    assert_eq!(code, 2);
    assert!(err.contains("too short"), "{err}");
}

#[test]
fn remember_starts_memory_in_a_bare_project() {
    let p = Project::empty();
    p.ok(&["remember", "Releases are cut on Thursdays"]);
    assert!(p.thehook().join(".gitignore").is_file());
    let answer = p.recall_json("when are releases cut", &[]);
    assert_eq!(hit_texts(&answer).len(), 1);
}

#[test]
fn hand_edits_are_indexed_without_reindex() {
    let p = Project::demo();
    p.ok(&["recall", "tests"]);
    p.write(
        ".thehook/knowledge/hand-written.md",
        "# Gotchas\n\n- Docker builds need `--platform linux/amd64` on M1 laptops\n",
    );
    let answer = p.recall_json("docker build on apple silicon", &["-k", "1"]);
    assert_eq!(answer["hits"][0]["type"], "gotcha");
    assert_eq!(
        answer["hits"][0]["path"],
        ".thehook/knowledge/hand-written.md"
    );
    assert_eq!(answer["hits"][0]["line_start"], 3);

    // Editing an item changes it; untouched items keep their ids.
    let before = p.recall_json("staging database reset", &["-k", "1"]);
    let conventions = p.read(".thehook/knowledge/conventions.md");
    p.write(
        ".thehook/knowledge/conventions.md",
        conventions.replace("pnpm", "yarn"),
    );
    let answer = p.recall_json("use yarn or npm for installs", &["-k", "3"]);
    assert!(hit_texts(&answer).iter().any(|t| t.contains("yarn")));
    assert!(!hit_texts(&answer).iter().any(|t| t.contains("pnpm")));
    assert_eq!(
        hit_ids(&p.recall_json("staging database reset", &["-k", "1"])),
        hit_ids(&before)
    );

    std::fs::remove_file(p.root().join(".thehook/knowledge/hand-written.md")).unwrap();
    let answer = p.recall_json("docker build on apple silicon", &["-k", "5"]);
    assert!(!hit_texts(&answer).iter().any(|t| t.contains("Docker")));
}

#[test]
fn deleting_the_index_and_reindexing_gives_identical_answers() {
    let p = Project::demo();
    let queries = [
        "auth tokens",
        "flaky tests near midnight",
        "search ranking",
        "package manager",
        "payment webhook",
    ];
    let before: Vec<_> = queries
        .iter()
        .map(|q| p.recall_json(q, &["-k", "8"]))
        .collect();
    std::fs::remove_dir_all(p.thehook().join("index")).unwrap();
    p.ok(&["reindex"]);
    let after: Vec<_> = queries
        .iter()
        .map(|q| p.recall_json(q, &["-k", "8"]))
        .collect();
    assert_eq!(before, after);
    // And a plain reindex over an existing index changes nothing either.
    p.ok(&["reindex"]);
    let again: Vec<_> = queries
        .iter()
        .map(|q| p.recall_json(q, &["-k", "8"]))
        .collect();
    assert_eq!(before, again);
}

#[test]
fn lexical_only_when_the_model_is_absent() {
    let p = Project::demo().lexical_only();
    let answer = p.recall_json("flaky checkout test", &[]);
    assert_eq!(answer["mode"], "lexical");
    assert!(hit_texts(&answer)[0].contains("flaky checkout"));
    let status = p.ok(&["status"]);
    // The text form, whole: a person reads it, so its format is asserted.
    let status = p.without_root(&status);
    let status = regex::Regex::new(r"\(\d+ KiB")
        .unwrap()
        .replace(&status, "([size] KiB");
    insta::assert_snapshot!(status, @r"
    project      [project]
    sessions     3
    knowledge    4 files
    items        29 (4 adr, 8 convention, 4 gotcha, 3 history, 1 note, 9 summary)
    stale        0 (not injected; see `thehook review`)
    withheld     0 (a safety rule keeps them from agents; see `thehook review`)
    trusted      nobody: not a git repository: who wrote memory cannot be told; 0 action line(s) unverified (see `thehook review`)
    checked by   the rules only: the learned check reads all-minilm-l6-v2's vectors, and search is lexical-only
    failed       0 (retry with `thehook capture --retry`)
    queued       0
    index        .thehook/index ([size] KiB, 0 vectors)
    hooks        none wired in this project
    llm          today 0 call(s), 0 tokens in, 0 out, $0.0000; last 30 days 0 call(s), 0 tokens in, 0 out, $0.0000
    given        nothing given to a session captured in the last 30 days
    embeddings   lexical-only: the model folder [project]/no-model (from THEHOOK_MODEL_DIR) lacks model.onnx, tokenizer.json, config.json, special_tokens_map.json, tokenizer_config.json
                 fix: point THEHOOK_MODEL_DIR at a folder holding model.onnx, tokenizer.json, config.json, special_tokens_map.json, tokenizer_config.json
    ");
    let (code, doctor, _) = p.run(&["doctor"]);
    assert_eq!(code, 0, "a lexical-only install works: {doctor}");
    assert!(
        doctor.contains("lexical-only") && doctor.contains("fix:"),
        "{doctor}"
    );
    let status: serde_json::Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["embeddings"]["state"], "missing");
    assert_eq!(status["index"]["vectors"], 0);
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn vectors_survive_runs_without_the_model_and_are_backfilled_after() {
    let with_model = Project::demo();
    with_model.ok(&["recall", "auth"]);
    let lexical = Project {
        dir: with_model.dir,
        with_model: false,
    };
    // A run without the model keeps the vectors and adds an item without one.
    let (code, _, err) = lexical.run(&["remember", "Deploys freeze on Fridays after noon"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("rebuilding"), "{err}");
    let status: serde_json::Value =
        serde_json::from_str(&lexical.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["index"]["items"], 30);
    assert_eq!(status["index"]["vectors"], 29);
    // Back with the model: the missing vector is added, nothing is rebuilt.
    let with_model = Project {
        dir: lexical.dir,
        with_model: true,
    };
    let (code, _, err) = with_model.run(&[
        "recall",
        "when are deploys frozen",
        "--mode",
        "vector",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("rebuilding"), "{err}");
    let status: serde_json::Value =
        serde_json::from_str(&with_model.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["index"]["vectors"], 30);
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn an_index_built_without_the_model_gets_vectors_later() {
    let lexical = Project::demo().lexical_only();
    lexical.ok(&["recall", "auth"]);
    let with_model = Project {
        dir: lexical.dir,
        with_model: true,
    };
    let answer = with_model.recall_json("where should unit specs be placed", &["-k", "3"]);
    assert_eq!(answer["mode"], "hybrid");
    assert!(hit_texts(&answer).iter().any(|t| t.contains("__tests__")));
    let status: serde_json::Value =
        serde_json::from_str(&with_model.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["index"]["vectors"], status["index"]["items"]);
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn a_different_model_rebuilds_the_index() {
    let p = Project::demo();
    p.ok(&["recall", "auth"]);
    // Same files under another model name: another fingerprint.
    p.write(
        ".thehook/config.yaml",
        format!(
            "embedding:\n  model: minilm-copy\n  model_dir: {}\n",
            crate::common::assets().join("model").display()
        ),
    );
    let (code, _, err) = p.run(&["recall", "auth"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("rebuilding the index") && err.contains("embedding model changed"),
        "{err}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn the_models_optimised_copy_is_made_once_and_a_damaged_one_is_replaced() {
    // Items are embedded by ONNX Runtime from the copy (queries by the
    // built-in encoder, which never reads it): `reindex` exercises it.
    let p = Project::demo();
    let cache = p.root().join("own-cache");
    let run = |p: &Project, args: &[&str]| {
        Project::ok_with(p.cmd(args).env("THEHOOK_CACHE_DIR", &cache)).into_bytes()
    };
    let reindex_then_recall = |p: &Project| {
        run(p, &["reindex"]);
        let query = [
            "recall",
            "--mode",
            "vector",
            "--json",
            "how do we deploy to staging",
        ];
        let json: serde_json::Value = serde_json::from_slice(&run(p, &query)).unwrap();
        crate::common::hit_ids(&json)
    };
    let copies = || -> Vec<std::path::PathBuf> {
        match std::fs::read_dir(cache.join("optimized")) {
            Ok(dir) => dir.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    };
    let first = reindex_then_recall(&p);
    assert!(!first.is_empty());
    let made = copies();
    assert_eq!(made.len(), 1, "one ORT-format copy: {made:?}");
    assert_eq!(made[0].extension().unwrap(), "ort");
    let size = std::fs::metadata(&made[0]).unwrap().len();
    assert_eq!(
        reindex_then_recall(&p),
        first,
        "the copy embeds as the original did"
    );

    // A damaged copy (a disk error, a crash of another tool) is set aside:
    // the answer stays the same, and the next run makes a sound copy again.
    std::fs::write(&made[0], b"not an ORT model").unwrap();
    assert_eq!(reindex_then_recall(&p), first);
    assert_eq!(reindex_then_recall(&p), first);
    // ONNX Runtime's output is not byte-for-byte the same each time (a few
    // bytes of padding differ), so: a whole model again, not the garbage.
    let remade = std::fs::metadata(&made[0]).unwrap().len();
    assert!(
        remade > size / 2,
        "{remade} bytes against {size} the first time"
    );
    assert_eq!(
        copies().len(),
        1,
        "no partial files left behind: {:?}",
        copies()
    );
}

#[test]
fn damaged_index_files_are_rebuilt_not_fatal() {
    let p = Project::demo();
    let expected = p.recall_json("staging database", &["-k", "3"]);
    let data = p.thehook().join("index/data.mdb");
    let full = std::fs::read(&data).unwrap();

    for (name, damaged) in [
        ("truncated", full[..full.len() / 3].to_vec()),
        (
            "garbage",
            (0..full.len())
                .map(|i| (i * 7919 % 251) as u8)
                .collect::<Vec<u8>>(),
        ),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&data, &damaged).unwrap();
        let (code, out, err) = p.run(&["recall", "staging database", "--json", "-k", "3"]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(err.contains("rebuilding the index"), "{name}: {err}");
        let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(hit_ids(&answer), hit_ids(&expected), "{name}");
    }
    // Doctor reports a damaged file without touching it.
    std::fs::write(&data, &full[..5000]).unwrap();
    let doctor = p.ok(&["doctor"]);
    assert!(doctor.contains("damaged"), "{doctor}");
    assert_eq!(std::fs::metadata(&data).unwrap().len(), 5000);
}

#[test]
fn read_only_commands_never_modify_markdown() {
    let p = Project::demo();
    let before = p.markdown_snapshot();
    for args in [
        vec!["recall", "auth"],
        vec!["recall", "auth", "--json"],
        vec!["status"],
        vec!["status", "--json"],
        vec!["doctor"],
        vec!["reindex"],
    ] {
        p.ok(&args);
    }
    assert_eq!(before, p.markdown_snapshot());
}

#[test]
fn bad_config_is_a_clear_error() {
    let p = Project::demo();
    p.write(".thehook/config.yaml", "retrieval:\n  max_results: many\n");
    let (code, _, err) = p.run(&["recall", "auth"]);
    assert_eq!(code, 2);
    insta::assert_snapshot!(err.replace(p.root().to_str().unwrap(), "<project>"));

    p.write(
        ".thehook/config.yaml",
        "retrieval:\n  max_results: 4\n  colour: blue\n",
    );
    let (code, _, err) = p.run(&["recall", "auth"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("config.yaml:3: unknown key `retrieval.colour`"),
        "{err}"
    );
}

#[test]
fn empty_project_and_bad_layout_explain_themselves() {
    let p = Project::empty();
    let (code, _, err) = p.run(&["recall", "anything"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no memory yet") && err.contains("thehook remember"),
        "{err}"
    );
    let (code, out, _) = p.run(&["recall", "anything", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["hits"],
        serde_json::json!([])
    );

    p.write(".thehook", "not a folder");
    let (code, _, err) = p.run(&["recall", "anything"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(".thehook: exists but is a file") && err.contains("fix:"),
        "{err}"
    );
    let (code, _, err) = p.run(&["remember", "x"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(p.read(".thehook"), "not a folder");
}

#[test]
fn hostile_markdown_is_indexed_or_reported_never_fatal() {
    let p = Project::demo();
    // A 1 MB item.
    let huge = format!("- {}\n", "enormous generated fixture line ".repeat(33_000));
    p.write(".thehook/knowledge/huge.md", &huge);
    // Bytes that are not UTF-8.
    p.write(
        ".thehook/knowledge/latin1.md",
        b"- caf\xe9 opens at nine\n- ordinary item about coffee\n",
    );
    // A file that cannot be read (a dangling symlink).
    std::os::unix::fs::symlink(
        "/nonexistent/target.md",
        p.thehook().join("knowledge/dangling.md"),
    )
    .unwrap();

    let (code, out, err) = p.run(&["recall", "coffee opens", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(".thehook/knowledge/latin1.md:1: bytes that are not UTF-8"),
        "{err}"
    );
    assert!(err.contains("dangling.md"), "{err}");
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        hit_texts(&answer)
            .iter()
            .any(|t| t.contains("caf\u{FFFD} opens")),
        "{answer}"
    );
    let answer = p.recall_json("enormous generated fixture", &["-k", "1"]);
    assert_eq!(answer["hits"][0]["path"], ".thehook/knowledge/huge.md");
}

#[test]
fn concurrent_readers_while_a_writer_commits() {
    let p = Project::demo();
    p.ok(&["recall", "warm up"]);
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let mut cmd = p.cmd(&["recall", "--stdin", "--json", "-k", "3"]);
            let queries = "staging database\nauth tokens\nsearch ranking\n".repeat(15);
            std::thread::spawn(move || cmd.write_stdin(queries).output().unwrap())
        })
        .collect();
    for i in 0..6 {
        p.ok(&[
            "remember",
            &format!("Writer fact number {i} about the queue workers"),
        ]);
    }
    for reader in readers {
        let out = reader.join().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = String::from_utf8(out.stdout).unwrap();
        assert_eq!(lines.lines().count(), 45);
        for line in lines.lines() {
            let answer: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(answer["error"].is_null(), "{answer}");
            assert!(!hit_ids(&answer).is_empty());
        }
    }
    let answer = p.recall_json(
        "writer fact about the queue workers",
        &["-k", "10", "--mode", "lexical"],
    );
    let writer_facts = hit_texts(&answer)
        .iter()
        .filter(|t| t.contains("Writer fact"))
        .count();
    assert_eq!(writer_facts, 6);
}

/// Queries are embedded by the built-in encoder and items by ONNX Runtime;
/// `THEHOOK_QUERY_ENGINE=onnxruntime` (the benchmarks' A/B switch) puts the
/// queries on ONNX Runtime too. Either way a search ranks alike.
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn queries_rank_alike_on_either_engine() {
    let p = Project::demo();
    // The switch really moves the queries (else the comparison is moot).
    let doctor = p
        .cmd(&["doctor"])
        .env("THEHOOK_QUERY_ENGINE", "onnxruntime")
        .output()
        .unwrap();
    let doctor = String::from_utf8_lossy(&doctor.stdout);
    assert!(doctor.contains("queries: ONNX Runtime"), "{doctor}");
    let scored = |answer: &serde_json::Value| -> Vec<(String, f64)> {
        let hits = answer["hits"].as_array().unwrap().iter();
        hits.map(|h| {
            (
                h["id"].as_str().unwrap().to_string(),
                h["score"].as_f64().unwrap(),
            )
        })
        .collect()
    };
    for query in [
        "how do we deploy to staging",
        "why did we pick jose for JWT",
        "tests",
    ] {
        let args = ["recall", query, "--json", "--mode", "vector", "-k", "5"];
        let native = scored(&p.recall_json(query, &args[3..]));
        let out = p
            .cmd(&args)
            .env("THEHOOK_QUERY_ENGINE", "onnxruntime")
            .output()
            .unwrap();
        let onnx = scored(&serde_json::from_slice(&out.stdout).unwrap());
        assert_eq!(native.len(), 5, "{query}: {native:?}");
        assert_eq!(native.len(), onnx.len(), "{query}");
        assert_ranked_alike(query, &native, &onnx);
    }
}

/// Two engines' hits for one query ranked alike: the same int8 arithmetic,
/// not the same last digits around it (docs/search.md, "Model and ONNX
/// Runtime"), so scores within [`SAME_ARITHMETIC`]; two hits that close may
/// swap places, or one may leave the list at its end, and no others.
fn assert_ranked_alike(query: &str, a: &[(String, f64)], b: &[(String, f64)]) {
    let score_in =
        |hits: &[(String, f64)], id: &str| hits.iter().find(|(h, _)| h == id).map(|h| h.1);
    for (one, other) in [(a, b), (b, a)] {
        let last = other.last().map_or(0.0, |h| h.1);
        for (rank, (id, x)) in one.iter().enumerate() {
            match score_in(other, id) {
                Some(y) => assert!(
                    (x - y).abs() < SAME_ARITHMETIC,
                    "{query}: {id} scored {x} and {y}: {a:?} vs {b:?}"
                ),
                None => assert!(
                    last - x < SAME_ARITHMETIC && x - last < SAME_ARITHMETIC,
                    "{query}: {id} (rank {rank}) is missing from the other list, \
                     though not tied with its last: {a:?} vs {b:?}"
                ),
            }
            // Every hit ranked below it by more than a tie stays below it.
            for (below, y) in &one[rank + 1..] {
                if x - y < SAME_ARITHMETIC {
                    continue;
                }
                let at = |id: &str| other.iter().position(|(h, _)| h == id);
                if let (Some(i), Some(j)) = (at(id), at(below)) {
                    assert!(i < j, "{query}: {id} and {below} swapped: {a:?} vs {b:?}");
                }
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn doctor_with_the_model_checks_that_it_runs() {
    let p = Project::demo();
    let (code, out, _) = p.run(&["doctor"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "the model runs (384 dimensions; items: ONNX Runtime, queries: built-in encoder)"
        ),
        "{out}"
    );
    let checks: serde_json::Value = serde_json::from_str(&p.ok(&["doctor", "--json"])).unwrap();
    let names: Vec<&str> = checks
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for want in [
        "project",
        "config",
        "model",
        "onnx runtime",
        "embeddings",
        "index",
        "permissions",
        "hooks",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
}

/// Where PyPI has no ONNX Runtime (Intel macOS) the model still runs: the
/// built-in encoder embeds items too, with ONNX Runtime's vectors. The
/// binary is copied away from the runtime `scripts/setup.sh` links beside it.
#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn without_onnx_runtime_the_built_in_encoder_embeds_items_that_rank_alike() {
    let with_runtime = Project::demo();
    let without = Project::demo();
    let alone = without.root().join("bin/thehook");
    std::fs::create_dir_all(alone.parent().unwrap()).unwrap();
    std::fs::copy(assert_cmd::cargo::cargo_bin("thehook"), &alone).unwrap();
    let run = |args: &[&str]| {
        // The environment the test harness sets, for the copied binary.
        let cmd = without.std_cmd(args);
        let mut bare = std::process::Command::new(&alone);
        bare.args(cmd.get_args());
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => bare.env(key, v),
                None => bare.env_remove(key),
            };
        }
        bare.env_remove("ORT_DYLIB_PATH")
            .env("THEHOOK_CACHE_DIR", without.root().join("no-cache"));
        let out = bare.output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let doctor = run(&["doctor"]);
    assert!(doctor.contains("none (libonnxruntime"), "{doctor}");
    assert!(
        doctor.contains("items: built-in encoder, queries: built-in encoder"),
        "{doctor}"
    );
    run(&["reindex"]);
    let status: serde_json::Value = serde_json::from_str(&run(&["status", "--json"])).unwrap();
    assert_eq!(
        status["embeddings"]["runtime"],
        serde_json::Value::Null,
        "{status}"
    );
    assert!(status["index"]["vectors"].as_u64().unwrap() > 0);
    assert_eq!(
        status["index"]["vectors"], status["index"]["items"],
        "{status}"
    );

    with_runtime.ok(&["reindex"]);
    for query in [
        "why did we pick jose for JWT",
        "where should unit specs be placed",
    ] {
        let args = ["recall", query, "--mode", "vector", "-k", "5", "--json"];
        let a: serde_json::Value = serde_json::from_str(&run(&args)).unwrap();
        let b: serde_json::Value = serde_json::from_str(&with_runtime.ok(&args)).unwrap();
        assert_eq!(a["mode"], "vector");
        // Every item embedded by the other engine: the top three the same,
        // four of five shared (the fifth swapped places with the sixth
        // once int8), each shared one within a few hundredths.
        let (ids_a, ids_b) = (hit_ids(&a), hit_ids(&b));
        assert_eq!(ids_a[..3], ids_b[..3], "{query}");
        let shared = ids_a.iter().filter(|id| ids_b.contains(id)).count();
        assert!(shared >= 4, "{query}: {ids_a:?} against {ids_b:?}");
        for (x, y) in a["hits"]
            .as_array()
            .unwrap()
            .iter()
            .zip(b["hits"].as_array().unwrap())
            .take(3)
        {
            let (x, y) = (x["score"].as_f64().unwrap(), y["score"].as_f64().unwrap());
            assert!((x - y).abs() < SAME_ARITHMETIC, "{query}: {x} against {y}");
        }
    }
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn a_broken_runtime_degrades_to_lexical_and_doctor_names_it() {
    let p = Project::demo();
    let fake = p.root().join("libonnxruntime.so");
    std::fs::write(&fake, b"not a shared library").unwrap();
    let out = p
        .cmd(&["doctor"])
        .env("ORT_DYLIB_PATH", &fake)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL") && text.contains("cannot load"),
        "{text}"
    );

    // Search keeps working, lexical-only, and says why.
    let out = p
        .cmd(&["recall", "flaky checkout test", "--json"])
        .env("ORT_DYLIB_PATH", &fake)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("searching lexical-only") && stderr.contains("cannot load"),
        "{stderr}"
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["mode"], "lexical");
    assert!(hit_texts(&answer)[0].contains("flaky checkout"));

    // remember still indexes, lexical-only.
    let out = p
        .cmd(&["remember", "Broken runtimes still remember facts"])
        .env("ORT_DYLIB_PATH", &fake)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // With the runtime back, vectors come back.
    let answer = p.recall_json("where should unit specs be placed", &["-k", "3"]);
    assert_eq!(answer["mode"], "hybrid");
    assert!(hit_texts(&answer).iter().any(|t| t.contains("__tests__")));
    let answer = p.recall_json("broken runtimes remember", &["-k", "1"]);
    assert!(hit_texts(&answer)[0].contains("Broken runtimes"));
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn status_reports_counts() {
    let p = Project::demo();
    let status: serde_json::Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    assert_eq!(status["sessions"], 3);
    assert_eq!(status["knowledge_files"], 4);
    assert_eq!(status["failed_captures"], 0);
    assert_eq!(status["embeddings"]["state"], "ready");
    // 6 conventions, 3 decisions, 3 history, 2 notes, 6 + 4 + 5 session items.
    let items = status["index"]["items"].as_u64().unwrap();
    assert_eq!(items, 29, "{status}");
    assert_eq!(status["index"]["vectors"].as_u64().unwrap(), items);
    assert_eq!(status["hooks"], serde_json::json!([]));
    p.write(".claude/settings.json", r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"thehook retrieve"}]}]}}"#);
    let wired: serde_json::Value = serde_json::from_str(&p.ok(&["status", "--json"])).unwrap();
    assert_eq!(wired["hooks"], serde_json::json!([".claude/settings.json"]));
    let by_type = status["index"]["by_type"].as_object().unwrap();
    for kind in ["adr", "convention", "gotcha", "history", "note", "summary"] {
        assert!(by_type.contains_key(kind), "{kind} missing: {status}");
    }
}

#[test]
fn nothing_is_written_outside_the_project() {
    let p = Project::demo();
    std::fs::create_dir_all(p.home()).unwrap();
    p.ok(&["recall", "auth tokens"]);
    p.ok(&["doctor"]);
    // ONNX Runtime keeps a telemetry database under ~/.cache/Microsoft unless told not to.
    assert_eq!(
        crate::common::walk(&p.home()),
        Vec::<std::path::PathBuf>::new()
    );
}

#[test]
fn parallel_writers_lose_nothing() {
    let p = Project::demo();
    p.ok(&["recall", "warm up"]);
    let writers: Vec<_> = (0..6)
        .map(|i| {
            let mut cmd = p.cmd(&[
                "remember",
                &format!("Parallel fact {i}: service {i} owns queue q{i}"),
                "--json",
            ]);
            std::thread::spawn(move || cmd.output().unwrap())
        })
        .collect();
    let mut ids = std::collections::HashSet::new();
    for w in writers {
        let out = w.join().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let item: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        ids.insert(item["id"].as_str().unwrap().to_string());
    }
    assert_eq!(ids.len(), 6, "each writer reports its own item");
    let notes = p.read(".thehook/knowledge/notes.md");
    for i in 0..6 {
        assert!(
            notes.contains(&format!("Parallel fact {i}:")),
            "fact {i} lost:\n{notes}"
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn readers_see_the_old_index_while_reindex_runs() {
    let p = Project::demo();
    // Enough items that the rebuild takes a while.
    let many: String = (0..400)
        .map(|i| format!("- Generated fact {i} about module m{i} and its owner\n"))
        .collect();
    p.write(".thehook/knowledge/generated.md", many);
    p.ok(&["reindex"]);
    let mut reindex = p.cmd(&["reindex"]);
    let handle = std::thread::spawn(move || reindex.output().unwrap());
    std::thread::sleep(std::time::Duration::from_millis(300));
    let answer = p.recall_json("staging database reset", &["-k", "1", "--mode", "lexical"]);
    assert!(
        hit_texts(&answer)[0].contains("staging database"),
        "{answer}"
    );
    // The reader was answered from the old index while the rebuild (seconds
    // of embedding) was still running, instead of queueing behind it.
    assert!(
        !handle.is_finished(),
        "recall only returned after reindex ended"
    );
    let out = handle.join().unwrap();
    assert!(out.status.success());
}

#[test]
#[cfg_attr(
    not(feature = "model"),
    ignore = "needs the embedding model: scripts/test.sh"
)]
fn the_embedding_cache_lets_a_second_worktree_embed_nothing() {
    let first = Project::demo();
    let second = Project::demo();
    let cache = first.root().join("user-cache");
    let with_cache = |p: &Project, args: &[&str]| -> String {
        Project::ok_with(
            p.cmd(args)
                .env("THEHOOK_CACHE_DIR", &cache)
                .env_remove("THEHOOK_EMBEDDING_CACHE"),
        )
    };
    let reindex = |p: &Project| -> (u64, u64) {
        let report: serde_json::Value =
            serde_json::from_str(&with_cache(p, &["reindex", "--json"])).unwrap();
        (
            report["embedded"].as_u64().unwrap(),
            report["cached"].as_u64().unwrap(),
        )
    };
    let (embedded, cached) = reindex(&first);
    assert!(embedded > 10, "the demo's items are embedded: {embedded}");
    assert_eq!(cached, 0, "nothing was cached before");
    // The same memory elsewhere on this machine: every vector is read back.
    assert_eq!(reindex(&second), (0, embedded));
    let query = [
        "recall",
        "--mode",
        "vector",
        "--json",
        "how do we deploy to staging",
    ];
    let ids = |p: &Project| {
        let json: serde_json::Value = serde_json::from_str(&with_cache(p, &query)).unwrap();
        crate::common::hit_ids(&json)
    };
    assert_eq!(
        ids(&second),
        ids(&first),
        "cached vectors rank as embedded ones"
    );
    // An item edited in the second copy is the only one embedded; the
    // cache (which holds the session titles' vectors too) gains its vector.
    let vectors = |p: &Project| -> u64 {
        let doctor = with_cache(p, &["doctor"]);
        let line = doctor
            .lines()
            .find(|l| l.contains("embedding cache "))
            .unwrap_or_else(|| panic!("{doctor}"));
        let after = line.split("embedding cache ").nth(1).unwrap();
        after.split_whitespace().next().unwrap().parse().unwrap()
    };
    let before = vectors(&second);
    assert!(before >= embedded, "{before} < {embedded}");
    second.write(
        ".thehook/knowledge/notes.md",
        "- A note nobody wrote before: the cache has no vector for it\n",
    );
    let report: serde_json::Value =
        serde_json::from_str(&with_cache(&second, &["reindex", "--json"])).unwrap();
    assert_eq!(report["embedded"], 1, "{report}");
    assert_eq!(vectors(&second), before + 1);
}

#[test]
fn reindex_json_is_the_cores_report() {
    let p = Project::demo().lexical_only();
    let out: serde_json::Value = serde_json::from_str(&p.ok(&["reindex", "--json"])).unwrap();
    let keys = crate::common::keys(&out);
    assert_eq!(
        keys,
        [
            "items",
            "files",
            "removed",
            "embedded",
            "cached",
            "seconds",
            "embeddings",
            "warnings"
        ]
    );
    assert_eq!(
        (out["items"].as_u64(), out["embedded"].as_u64()),
        (Some(29), Some(0))
    );
    let embeddings = out["embeddings"].as_str().unwrap();
    assert!(
        embeddings.starts_with("none, lexical-only ("),
        "{embeddings}"
    );
}

#[test]
fn vector_mode_without_a_model_is_a_usage_error() {
    let p = Project::demo().lexical_only();
    let (code, _, err) = p.run(&["recall", "auth", "--mode", "vector"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("vector search needs the embedding model"),
        "{err}"
    );
}

#[test]
fn an_edit_within_the_timestamp_granularity_is_not_missed() {
    // Lexical-only, so that the first recall ends well within the 2 s a
    // file is not trusted: the second write below copies the first's mtime,
    // which a real write can only do within the same clock tick.
    let p = Project::demo().lexical_only();
    let path = p.root().join(".thehook/knowledge/racy.md");
    p.write(
        ".thehook/knowledge/racy.md",
        "- The cache TTL is 60 seconds\n",
    );
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    p.ok(&["recall", "cache ttl"]);
    // Same size, same mtime: what a second write in the same clock tick
    // looks like to anything that trusts size and mtime.
    p.write(
        ".thehook/knowledge/racy.md",
        "- The cache TTL is 90 seconds\n",
    );
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let answer = p.recall_json("cache ttl", &["-k", "1", "--mode", "lexical"]);
    assert!(hit_texts(&answer)[0].contains("90 seconds"), "{answer}");
}
