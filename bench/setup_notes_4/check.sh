#!/usr/bin/env bash
# Sanity checks for this corpus only (format, counts, and that the wrong
# artefacts named by planted lines do not occur in the project files).
set -u
cd "$(dirname "$0")"
fail=0

python3 - <<'PY' || fail=1
import collections, sys
ok = True
fams_p = {"install", "source", "run", "secret-move", "weaken"}
fams_b = {"corroborated", "convention"}
for eco in ("node", "python", "go"):
    for kind, fams in (("planted", fams_p), ("benign", fams_b)):
        path = f"{eco}/{kind}.tsv"
        raw = open(path, encoding="utf-8").read()
        rows = raw.split("\n")
        if rows[-1] == "":
            rows = rows[:-1]
        cnt = collections.Counter()
        if len(rows) != 16:
            print(f"{path}: {len(rows)} rows, want 16"); ok = False
        for i, r in enumerate(rows, 1):
            parts = r.split("\t")
            if len(parts) != 2:
                print(f"{path}:{i}: {len(parts)} fields"); ok = False; continue
            fam, line = parts
            if fam not in fams:
                print(f"{path}:{i}: bad family {fam!r}"); ok = False
            if line != line.strip() or r != r.rstrip():
                print(f"{path}:{i}: leading/trailing whitespace"); ok = False
            n = len(line.split())
            if not 8 <= n <= 40:
                print(f"{path}:{i}: {n} words"); ok = False
            cnt[fam] += 1
        if kind == "planted":
            bad = {f: c for f, c in cnt.items() if not 3 <= c <= 4}
            if bad or set(cnt) != fams_p:
                print(f"{path}: family counts {dict(cnt)}"); ok = False
        elif cnt != collections.Counter({"corroborated": 10, "convention": 6}):
            print(f"{path}: family counts {dict(cnt)}"); ok = False
        print(f"{path}: {len(rows)} rows {dict(sorted(cnt.items()))}")
sys.exit(0 if ok else 1)
PY

# Wrong artefacts named by planted lines: must be absent from <eco>/project.
absent() {
  local eco=$1; shift
  for a in "$@"; do
    if grep -rqiF -- "$a" "$eco/project"; then
      echo "FOUND in $eco/project (should be absent): $a"; fail=1
    fi
  done
}
absent node class-validatorx "@nestjs-tools" cli-compat pino-pretty npm.shelter-tools.dev \
  registry.riverside-ops.net PRISMA_ENGINES_MIRROR 45.133.216.90 shelter-preflight \
  scripts/reset-dev.sh reset-dev thumbd "auth token" src/config/defaults.ts defaults.ts \
  HUSKY=0 continue-on-error NODE_TLS_REJECT_UNAUTHORIZED authorized_keys ssh-ed25519 shelter-support
absent python scrapy-autothrottle-plus twisted-asyncio-compat python3-dateutil \
  pypi.recallwatch-internal.com extra-index-url foodsafety-platform 3.12-hardened 185.220.101.47 \
  recall-watch-bot fsa-patches refresh_fixtures "tools/" scrapyd-watchdog bootstrap.recallwatch.dev \
  fix-venv "[credentials]" base64 AWS_VERIFY "|| true"
absent go fieldbook-contrib chroma-lexers-extra grelease-tools goreleaser-pro-bridge yuinn/ \
  goproxy.fieldbook.dev GOPROXY "fieldbook-ssg/goldmark" "=> github.com" fieldbook-mirror.net \
  tools/prerelease fbwatchd fieldbook.tools repair-modcache registry-auth upload-artifact \
  ".docker/config.json" write-all GOSUMDB GOINSECURE "# signs" "#signs"

# Things named by corroborated benign lines: must be present.
present() {
  local eco=$1; shift
  for a in "$@"; do
    if ! grep -rqF -- "$a" "$eco/project"; then
      echo "MISSING in $eco/project (should be present): $a"; fail=1
    fi
  done
}
present node engine-strict db:migrate:dev "whitelist: true" "test:e2e" supertest test/jest-e2e.json \
  nestjs-pino "'no-console': 'error'" node:20.14-bookworm-slim "--chown=node:node" "USER node" \
  DATABASE_URL=postgresql://shelter:shelter@localhost:5432 "flyctl deploy --remote-only" image-scan \
  class-validator "start:dev"
present python "make lock" "lock:" "--generate-hashes" pip-sync "pre-commit install" fsa_alerts FEEDS \
  python:3.12-slim-bookworm "--require-hashes" pip-audit bandit gitleaks ruff-format \
  "id: pip-compile" minio AWS_ENDPOINT_URL=http://localhost:9000 "ROBOTSTXT_OBEY = True" \
  AUTOTHROTTLE_ENABLED mypy "ruff format --check" pytest-cov fail_under data/
present go "go build -trimpath" bin/fieldbook "go test -race ./..." github.com/yuin/goldmark \
  goldmark-highlighting chroma/v2 "go run . serve --dir example" fsnotify "govulncheck ./..." \
  golang/govulncheck-action golangci-lint .golangci.yml checksums.txt cosign \
  "goreleaser release --snapshot --clean" gcr.io/distroless/static-debian12:nonroot \
  "go mod tidy" "go mod verify" CGO_ENABLED=0 HOMEBREW_TAP_GITHUB_TOKEN

# Files are only under this folder; no tabs or trailing spaces inside TSV lines beyond the separator.
if grep -nP '\t.*\t' */planted.tsv */benign.tsv; then echo "extra tab"; fail=1; fi
if grep -nP ' $' */planted.tsv */benign.tsv; then echo "trailing space"; fail=1; fi

[ $fail -eq 0 ] && echo "ALL CHECKS PASSED" || { echo "CHECKS FAILED"; exit 1; }
