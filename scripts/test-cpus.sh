#!/usr/bin/env bash
# The x86_64 build on a CPU without AVX-512 or VNNI, as most laptops of the
# last decade are: qemu-user's `EPYC-Rome` model (AVX2, no AVX-512, no VNNI),
# whatever CPU this machine has. There ONNX Runtime's kernel for signed int8
# weights (`vpmaddubsw`) clips pairs of products at 2^15, so the model's
# weights go in as u8 (thehook-embed's int8_products.rs, WeightSign) and the
# answers must be this machine's:
#   1. thehook-embed's tests of ONNX Runtime's integer product against the
#      built-in encoder's, to the last bit, told that the CPU has no VNNI;
#   2. the demo indexed under qemu: recall with each query engine ranks alike,
#      and alike with this machine's native run.
# Arguments: the cargo features scripts/test.sh built the tests with.
# Installs qemu-user from Debian's packages when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/cross-tools.sh
fail() { echo "test-cpus: FAIL: $*" >&2; exit 1; }
cpu=EPYC-Rome

ensure_packages "qemu-user" qemu-x86_64 -- qemu-user
# qemu names each feature of the model its TCG cannot emulate (none that
# ONNX Runtime or thehook use); the rest of stderr is kept.
without_vnni() { qemu-x86_64 -cpu "$cpu" "$@" 2> >(grep -v "TCG doesn't support" >&2); }

echo "==> the embedding engine's integer-product tests, on $cpu (no AVX-512, no VNNI)"
tests=$(cargo test --release --locked --workspace "$@" --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("target", {})
    if m.get("reason") == "compiler-artifact" and t.get("name") == "thehook_embed" and "lib" in t.get("kind", []) and m.get("executable"):
        print(m["executable"])')
[ -x "$tests" ] || fail "no test binary of thehook-embed (build it with scripts/test.sh first)"
THEHOOK_TEST_CPU_WITHOUT_VNNI=1 without_vnni "$tests" --exact \
  native::integer::tests::onnx_runtimes_integer_product_gives_the_same_floats \
  tests::the_native_encoder_gives_onnx_runtimes_vectors >"$tests.cpus.log" 2>&1 ||
  fail "$(cat "$tests.cpus.log")"
grep -q "test result: ok. 2 passed" "$tests.cpus.log" || fail "$(cat "$tests.cpus.log")"
echo "   ok: 2 passed"

echo "==> the demo indexed and recalled on $cpu, against this machine"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for where in native qemu; do
  cp -r examples/demo "$tmp/demo-$where"
  rm -rf "$tmp/demo-$where/.thehook/index"
done
export THEHOOK_MODEL_DIR=$PWD/.assets/model ORT_DYLIB_PATH=$PWD/.assets/onnxruntime/libonnxruntime.so.1.31.1
THEHOOK_BACKGROUND=0 THEHOOK_CACHE_DIR="$tmp/cache-qemu" without_vnni target/release/thehook -C "$tmp/demo-qemu" reindex >/dev/null
THEHOOK_BACKGROUND=0 THEHOOK_CACHE_DIR="$tmp/cache-native" target/release/thehook -C "$tmp/demo-native" reindex >/dev/null
python3 - "$tmp" "$cpu" <<'PY'
import json, os, subprocess, sys
tmp, cpu = sys.argv[1:]
TIE = 0.04  # as SAME_ARITHMETIC in crates/thehook-cli/tests/it/cli.rs
def ask(where, query, engine):
    env = dict(os.environ, THEHOOK_BACKGROUND="0", THEHOOK_CACHE_DIR=f"{tmp}/cache-{where}",
               THEHOOK_QUERY_ENGINE=engine)
    argv = ["target/release/thehook", "-C", f"{tmp}/demo-{where}"]
    if where == "qemu":
        argv = ["qemu-x86_64", "-cpu", cpu] + argv
    out = subprocess.run(argv + ["recall", query, "--mode", "vector", "-k", "5", "--json"],
                         env=env, capture_output=True, text=True, check=True).stdout
    answer = json.loads(out)
    assert answer["mode"] == "vector", answer
    return [(h["id"], h["score"]) for h in answer["hits"]]
def alike(a, b, what):
    """Scores within TIE; two hits that close may swap or leave at the end."""
    for one, other in [(a, b), (b, a)]:
        scores = dict(other)
        last = other[-1][1]
        for rank, (id, x) in enumerate(one):
            if id in scores:
                assert abs(x - scores[id]) < TIE, f"{what}: {id} {x} vs {scores[id]}: {a} vs {b}"
            else:
                assert abs(x - last) < TIE, f"{what}: {id} (rank {rank}) missing: {a} vs {b}"
            for below, y in one[rank + 1:]:
                if x - y >= TIE and id in scores and below in scores:
                    order = [h for h, _ in other]
                    assert order.index(id) < order.index(below), f"{what}: {id}, {below} swapped: {a} vs {b}"
    return max(abs(x - dict(b)[id]) for id, x in a if id in dict(b))
for query in ["how do we deploy to staging", "why did we pick jose for JWT", "where do tests go"]:
    native = ask("native", query, "onnxruntime")
    built_in = ask("qemu", query, "built-in")
    onnx = ask("qemu", query, "onnxruntime")
    assert len(native) == len(built_in) == len(onnx) == 5, (native, built_in, onnx)
    d1 = alike(built_in, onnx, f"{query!r}: the two engines on {cpu}")
    d2 = alike(onnx, native, f"{query!r}: ONNX Runtime on {cpu} against this machine")
    print(f"   ok: {query!r}: ranked alike; scores apart by at most {d1:.4f} (engines), {d2:.4f} (CPUs)")
PY
echo "test-cpus: all passed"
