#!/bin/sh
# Times `git scribe check` over a vault history of N commits (each appends a
# journal entry; the journal keeps 50, older entries move to the archive)
# against `git log -p` over the same paths, and prints the ratio.
# Needs hyperfine (apt-get install hyperfine). Usage: scripts/bench-check.sh [commits]
set -eu
commits=${1:-5000}
BENCH_GENREPO=1 . "$(dirname "$0")/bench-env.sh"
git init -q -b main "$work/repo"
cd "$work/repo"
genrepo -files 200 -commits "$commits" -journal | git fast-import --quiet
git reset -q --hard main
paths=".claude/sonmat/journal.md .claude/sonmat/journal-archive.md"
hyperfine -N --warmup 1 --runs 10 --export-json "$work/check.json" \
  --command-name git-log-p "git log -p -- $paths" \
  --command-name scribe-check "git scribe check"
python3 - "$work/check.json" <<'PY' 2>/dev/null || true
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
g, s = r["git-log-p"], r["scribe-check"]
print(f"median git log -p {g*1000:.0f} ms, scribe check {s*1000:.0f} ms, ratio {s/g:.2f}x (target <= 2x)")
PY
