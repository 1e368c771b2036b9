#!/usr/bin/env bash
# The linux-arm64 build, run for real under qemu-user with what its npm
# package ships: ONNX Runtime from the manylinux aarch64 wheel and the
# model. It indexes the demo project with real embeddings and must find what
# the x86_64 build finds: the same top three, four of five shared (x86_64
# runs the model's int8 products in integers, aarch64 in floats). Installs the aarch64
# cross compilers and qemu-user from Debian's packages, and the Rust target
# with rustup, when missing.
#
# Under qemu-user the guest reads the host's x86 /proc/cpuinfo, on which
# ONNX Runtime's CPU detection (cpuinfo) crashes with a null pointer; the
# runs below see an arm64 one (tests/arm64/cpuinfo: two Neoverse N1 cores)
# bind-mounted in a mount namespace of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu

. scripts/cross-tools.sh
fail() { echo "test-arm64: FAIL: $*" >&2; exit 1; }

if [ "${1:-}" != --in-namespace ]; then
  ensure_packages "the aarch64 cross compilers and qemu-user" aarch64-linux-gnu-gcc qemu-aarch64 -- \
    gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  ensure_target "$target"
  echo "==> cargo build --target $target"
  CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++ \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    cargo build --quiet --release --locked -p thehook-cli --target "$target"
  if ! unshare -m true 2>/dev/null; then
    # Not a fault of the code: this sandbox gives no mount namespace.
    echo "test-arm64: SKIPPED: no mount namespace here (unshare -m), so ONNX Runtime cannot be shown an arm64 /proc/cpuinfo" >&2
    exit 0
  fi
  exec unshare -m "$0" --in-namespace
fi
as_root mount --bind tests/arm64/cpuinfo /proc/cpuinfo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# What npm/linux-arm64-gnu ships beside the binary, and the model package's files.
assets=$(python3 scripts/fetch-assets.py "$tmp/assets" --platform linux-arm64-gnu 2>/dev/null)
bin=$tmp/package
mkdir -p "$bin"
cp "target/$target/release/thehook" "$assets/onnxruntime/libonnxruntime.so.1.31.1" "$bin/"
cp -r "$assets/model" "$bin/model"
python3 -c 'import sys; h = open(sys.argv[1], "rb").read(20); sys.exit(h[:4] != b"\x7fELF" or h[18:20] != b"\xb7\x00")' "$bin/thehook" ||
  fail "$bin/thehook is not an aarch64 ELF binary"

for arch in arm64 x86_64; do
  cp -r examples/demo "$tmp/demo-$arch"
  rm -rf "$tmp/demo-$arch/.thehook/index"
done
arm64() { THEHOOK_BACKGROUND=0 THEHOOK_CACHE_DIR="$tmp/cache-arm64" qemu-aarch64 -L "$sysroot" "$bin/thehook" -C "$tmp/demo-arm64" "$@"; }
# The x86_64 build of scripts/test.sh, with the assets of this machine.
export THEHOOK_X86_MODEL=$PWD/.assets/model THEHOOK_X86_ORT=$PWD/.assets/onnxruntime/libonnxruntime.so.1.31.1
x86_64() {
  THEHOOK_BACKGROUND=0 THEHOOK_CACHE_DIR="$tmp/cache-x86_64" THEHOOK_MODEL_DIR=$THEHOOK_X86_MODEL ORT_DYLIB_PATH=$THEHOOK_X86_ORT \
    target/release/thehook -C "$tmp/demo-x86_64" "$@"
}

echo "==> thehook doctor (aarch64, under qemu)"
arm64 doctor >"$tmp/doctor.txt" || true
grep -q "onnx runtime .*/libonnxruntime.so.1.31.1 (beside the binary)" "$tmp/doctor.txt" || fail "$(cat "$tmp/doctor.txt")"
grep -q "embeddings .*the model runs (384 dimensions; items: ONNX Runtime" "$tmp/doctor.txt" || fail "$(cat "$tmp/doctor.txt")"

echo "==> reindex and recall, aarch64 against x86_64"
arm64 reindex >/dev/null
x86_64 reindex >/dev/null
python3 - "$tmp" <<'PY'
import json, os, subprocess, sys
tmp = sys.argv[1]
def ask(arch, query):
    demo = f"{tmp}/demo-{arch}"
    env = {"THEHOOK_BACKGROUND": "0", "THEHOOK_CACHE_DIR": f"{tmp}/cache-{arch}", "PATH": "/usr/bin:/bin"}
    if arch == "arm64":
        argv = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", f"{tmp}/package/thehook"]
    else:
        argv = ["target/release/thehook"]
        env.update(THEHOOK_MODEL_DIR=os.environ["THEHOOK_X86_MODEL"], ORT_DYLIB_PATH=os.environ["THEHOOK_X86_ORT"])
    out = subprocess.run(argv + ["-C", demo, "recall", query, "--mode", "vector", "-k", "5", "--json"],
                         env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out)
status = subprocess.run(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", f"{tmp}/package/thehook",
                         "-C", f"{tmp}/demo-arm64", "status", "--json"],
                        env={"THEHOOK_BACKGROUND": "0", "THEHOOK_CACHE_DIR": f"{tmp}/cache-arm64"},
                        capture_output=True, text=True, check=True).stdout
s = json.loads(status)
assert s["index"]["vectors"] == s["index"]["items"] > 0, status
for query in ["why did we pick jose for JWT", "where do tests go", "how are sessions stored"]:
    a, x = ask("arm64", query), ask("x86_64", query)
    assert a["mode"] == x["mode"] == "vector", (a["mode"], x["mode"])
    ids_a = [h["id"] for h in a["hits"]]
    ids_x = [h["id"] for h in x["hits"]]
    # x86-64 runs the int8 weight products in integers, aarch64 in floats
    # (crates/thehook-embed/src/onnx_graph.rs, INT8_PRODUCTS): the same ranking at the
    # top, not the same last digits.
    assert ids_a[:3] == ids_x[:3], f"{query}: {ids_a} != {ids_x}"
    shared = len(set(ids_a) & set(ids_x))
    assert shared >= 4, f"{query}: {ids_a} and {ids_x} share {shared}"
    print(f"   ok: {query!r}: the same top 3, {shared} of {len(ids_a)} hits shared")
PY
echo "test-arm64: all passed"
