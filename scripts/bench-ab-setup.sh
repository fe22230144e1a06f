#!/bin/sh
# Makes a persistent bench directory for scripts/bench-ab.py: a clone of
# SOURCE with the hook installed, one wrap, one Stop, and the scripts the
# runs use (change.sh: a 3-file commit; turn.sh: a transcript turn and a
# commit; stop.json: the Stop hook input). NOSTOP=1 skips the Stop.
# Usage: scripts/bench-ab-setup.sh SOURCE DIR   (DIR is replaced)
set -eu
src=$1; w=$2
rm -rf "$w"; mkdir -p "$w/home"
export GIT_CONFIG_NOSYSTEM=1 HOME="$w/home"
git config --global user.email bench@example.com
git config --global user.name Bench
git config --global init.defaultBranch main
repo="$w/repo"
. "$(dirname "$0")/bench-repo.sh"
bench_repo "$src" "$repo" "$w"
[ -n "${NOSTOP:-}" ] || { "$w/turn.sh" && git scribe wrap --hook < "$w/stop.json"; }
cat > "$w/env" <<SH
export GIT_CONFIG_NOSYSTEM=1 HOME="$w/home"
cd "$repo"
SH
