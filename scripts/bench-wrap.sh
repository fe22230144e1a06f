#!/bin/sh
# Times `git scribe wrap` against the plain-git equivalent (`git diff --stat` +
# `git commit` of two small files) on the same 3-file change in a generated
# repository of 20,000 files and 5,000 commits, and prints the ratio.
# Needs hyperfine (apt-get install hyperfine). Usage: scripts/bench-wrap.sh [files] [commits]
set -eu
files=${1:-20000}
commits=${2:-5000}
BENCH_GENREPO=1 . "$(dirname "$0")/bench-env.sh"
repo="$work/repo"
git init -q -b main "$repo"
cd "$repo"
genrepo -files "$files" -commits "$commits" | git fast-import --quiet
git reset -q --hard main
git scribe wrap --mode journal --hint warmup >/dev/null
change='n=$(date +%s%N); for f in src/d001/f00001.txt src/d002/f00002.txt src/d003/f00003.txt; do echo "$n" >> $f; done'
hyperfine -N --warmup 3 --runs 30 --export-json "$work/wrap.json" \
  --prepare "sh -c '$change'" \
  --command-name plain-git "sh -c 'git diff --stat >/dev/null && echo \$\$ >> notes-a.md && echo \$\$ >> notes-b.md && git add notes-a.md notes-b.md && git commit -q -m x -- notes-a.md notes-b.md'" \
  --command-name scribe-wrap "git scribe wrap --mode bridge+journal --hint bench"
python3 - "$work/wrap.json" <<'PY' 2>/dev/null || true
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
g, s = r["plain-git"]["median"], r["scribe-wrap"]["median"]
print(f"median plain-git {g*1000:.1f} ms, scribe-wrap {s*1000:.1f} ms, ratio {s/g:.2f}x (target <= 1.2x, SPEC §10)")
PY
