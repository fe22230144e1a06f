#!/bin/sh
# Times git-scribe against plain git on a real repository, the paths a user
# and the agents' hooks wait for (issue 15), each ratio measured side by side
# in one hyperfine run:
#
#   wrap    commit with the post-commit hook installed, then
#           `git scribe wrap --hint X`, vs the plain-git way of doing the job
#           (`git diff --stat HEAD~1` + a journal commit)
#   status  `git scribe status` and `git scribe bridge` vs `git status`
#   stop    a Stop hook after a turn that committed files it rewrote, and
#           after one that also added a file, vs `git status`
#   check   `git scribe check` vs `git log -p` over the paths it reads,
#           whole history, --since HEAD~500 and --since its commit id (as
#           the CI job passes the base), in paired rounds
#           (scripts/bench-pair.py)
#
# Usage: scripts/bench-real.sh SOURCE [RUNS]
#   SOURCE: a repository to clone (a path or URL; e.g. a `fetch` mirror such
#   as /work/.mirror/moby+moby/repo). The clone goes to a temporary directory
#   and is removed at the end. Needs hyperfine (apt-get install hyperfine).
set -eu
src=$1
runs=${2:-15}
. "$(dirname "$0")/bench-env.sh"
git config --global init.defaultBranch main
repo="$work/repo"
. "$(dirname "$0")/bench-repo.sh"
bench_repo "$src" "$repo" "$work"
echo "$(basename "$src"): $(git rev-list --count HEAD) commits, $(git ls-files | wc -l) files, load $(cut -d' ' -f1-3 /proc/loadavg)"

json() { python3 -c 'import json,sys
r={x["command"]:x["median"]*1000 for x in json.load(open(sys.argv[1]))["results"]}
b=r[sys.argv[2]]
print("  ".join(f"{k} {v:.1f} ms ({v/b:.2f}x)" for k,v in r.items()))' "$@"; }

echo "== wrap path (medians; ratio to plain git)"
hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/wrap.json" \
  --prepare "$work/change.sh" --command-name scribe-wrap "git scribe wrap --hint X" \
  --prepare "$work/change.sh" --command-name plain-git \
  "sh -c 'git diff --stat HEAD~1 >/dev/null && echo \$\$ >> notes.md && git add notes.md && git commit -q -m x -- notes.md'" >/dev/null
json "$work/wrap.json" plain-git

echo "== status and bridge (ratio to git status)"
hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/status.json" \
  --command-name git-status "git status" \
  --command-name scribe-status "git scribe status" \
  --command-name scribe-bridge "git scribe bridge" >/dev/null
json "$work/status.json" git-status

echo "== Stop hook after a turn that committed (ratio to git status --porcelain)"
"$work/turn.sh" && git scribe wrap --hook < "$work/stop.json"
hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/stop-t.json" \
  --prepare "$work/turn.sh" --command-name git-status "git status --porcelain" \
  --prepare "$work/turn.sh" --command-name stop-after-commit "sh -c 'git scribe wrap --hook < $work/stop.json'" \
  --prepare "$work/newturn.sh" --command-name stop-after-new-file "sh -c 'git scribe wrap --hook < $work/stop.json'" >/dev/null
json "$work/stop-t.json" git-status

echo "== check (ratio to git log -p over the same paths; paired rounds, scripts/bench-pair.py)"
paths="CLAUDE.md progress.md .claude/memory .claude/sonmat"
base=HEAD~500
git rev-parse -q --verify "$base" >/dev/null || base=$(git rev-list --max-parents=0 HEAD | head -n 1)
# Shuffled rounds, not hyperfine's blocks: the two sides of a 20 ms job
# moved by as much as their ratio between blocks a minute apart.
python3 "$root/scripts/bench-pair.py" "$(( runs < 10 ? runs : 10 ))" "exec git log -p -- $paths" "exec git scribe check"
python3 "$root/scripts/bench-pair.py" "$(( runs * 2 ))" "exec git log -p $base..HEAD -- $paths" "exec git scribe check --since $base"
# The CI job passes the pull request's base as a commit id.
id=$(git rev-parse "$base")
python3 "$root/scripts/bench-pair.py" "$(( runs * 2 ))" "exec git log -p $id..HEAD -- $paths" "exec git scribe check --since $id"
