#!/bin/sh
# Times `git scribe status regenerate` end to end on a repository of the
# benchmark corpus (vault/followups_bench_test.go: 10,000 follow-ups in 200
# projects, 723 source files and the journal; the "files" corpus by
# default): the dashboard already current, once with scribe's cache warm,
# once after one source changed (a todos.md gets a line before each run),
# and once with the cache removed before each run. With a revision, that
# revision's binary is timed in the same hyperfine run.
# Needs hyperfine (apt-get install hyperfine).
# Usage: scripts/bench-activestatus.sh [baseline-rev] (SCRIBE_BENCH_FOLLOWUPS,
# SCRIBE_BENCH_CORPUS as for TestWriteBenchRepo)
set -eu
base=${1:-}
# bench-env.sh gives git a throw-away HOME; the Go caches stay the user's.
GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE) GOENV=$(go env GOENV)
export GOMODCACHE GOCACHE GOENV
. "$(dirname "$0")/bench-env.sh"
if [ -n "$base" ]; then
	mkdir -p "$work/base/src" "$work/base/bin"
	(cd "$root" && git archive "$base") | tar -x -C "$work/base/src"
	(cd "$work/base/src" && CGO_ENABLED=0 go build -o "$work/base/bin/git-scribe" .)
fi
repo="$work/repo"
(cd "$root" && SCRIBE_BENCH_REPO="$repo" go test -count=1 -run '^TestWriteBenchRepo$' ./vault >/dev/null)
cd "$repo"
git scribe status regenerate >/dev/null # imports the journal, writes the dashboard
set -- --command-name current "git scribe status regenerate"
if [ -n "$base" ]; then
	set -- "$@" --command-name baseline "env PATH=$work/base/bin:$PATH git scribe status regenerate"
fi
hyperfine -N --warmup 2 --runs 15 --export-json "$work/current.json" "$@"
change="sh -c 'echo \"- bench item \$(date +%s%N)\" >> projects/p000/todos.md'"
hyperfine -N --warmup 2 --runs 15 --export-json "$work/changed.json" --prepare "$change" "$@"
hyperfine -N --warmup 2 --runs 15 --export-json "$work/cold.json" --prepare "rm -rf .git/scribe/followups" "$@"
python3 - "$work" <<'PY' 2>/dev/null || true
import json, sys
for run in ("current", "changed", "cold"):
    for x in json.load(open(f"{sys.argv[1]}/{run}.json"))["results"]:
        print(f"{run:8} {x['command']:9} median {x['median']*1000:6.1f} ms (user {x['user']*1000:.0f} ms, system {x['system']*1000:.0f} ms)")
PY
uptime
