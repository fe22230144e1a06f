#!/bin/sh
# Two builds crossed over on a real repository: two bench directories
# (scripts/bench-ab-setup.sh), each build timed in one, then in the other,
# in paired rounds (scripts/bench-pair.py), so that what one directory's
# own history does to its times falls on both builds.
#   stop  a Stop hook after a turn that committed, vs git status
#   wrap  a commit then `git scribe wrap --hint X`, vs the plain-git way
# Usage: scripts/bench-cross.sh SOURCE WORKDIR ROUNDS stop|wrap BEFORE AFTER
#   BEFORE, AFTER: directories holding a git-scribe binary each.
set -eu
src=$1 w=$2 n=$3 kind=$4 before=$5 after=$6
root=$(cd "$(dirname "$0")/.." && pwd)
# Z is the plain-git side's own: its commits would make X's history
# another's.
for d in X Y Z; do "$root/scripts/bench-ab-setup.sh" "$src" "$w/$d" >/dev/null; done
. "$w/X/env"
cmd() {
	if [ "$kind" = wrap ]; then
		echo "cd $w/$1/repo && $w/$1/change.sh ;; cd $w/$1/repo && PATH=$2:\$PATH exec git scribe wrap --hint X"
	else
		echo "cd $w/$1/repo && $w/$1/turn.sh ;; cd $w/$1/repo && PATH=$2:\$PATH exec git scribe wrap --hook < $w/$1/stop.json"
	fi
}
base="exec git status --porcelain"
[ "$kind" = wrap ] && base="cd $w/Z/repo && $w/Z/change.sh ;; cd $w/Z/repo && exec sh -c 'git diff --stat HEAD~1 >/dev/null && echo \$\$ >> notes.md && git add notes.md && git commit -q -m x -- notes.md'"
echo "pass 1: after in X, before in Y"
python3 "$root/scripts/bench-pair.py" "$n" "$base" "$(cmd X "$after")" "$(cmd Y "$before")"
echo "pass 2: after in Y, before in X"
python3 "$root/scripts/bench-pair.py" "$n" "$base" "$(cmd Y "$after")" "$(cmd X "$before")"
