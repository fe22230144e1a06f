#!/bin/sh
# Counts the git processes of git-scribe's waited-for write paths on a real
# repository (issue 15): three default wraps after a 3-file commit, and four
# Stop hooks after a committed turn. Every exec of git is counted (strace),
# cat-file included. Deterministic where timings are not: compare two
# binaries on the same clone source.
#
# Usage: scripts/count-git.sh BINDIR SOURCE
#   BINDIR: a directory holding the git-scribe to count (first in PATH)
#   SOURCE: a repository to clone (e.g. /work/.mirror/git+git/repo)
# Needs strace (apt-get install strace).
set -eu
bin=$(cd "$1" && pwd); src=$2; here=$(cd "$(dirname "$0")" && pwd)
command -v strace >/dev/null || { echo "count-git.sh: needs strace (apt-get install strace)" >&2; exit 2; }
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
git clone -q "$src" "$d/r"; cd "$d/r"
export PATH="$bin:$PATH"
git scribe hook install >/dev/null; git status >/dev/null
. "$here/bench-repo.sh"
files=$(bench_files)
ch() { for f in $files; do echo "$1" >> "$f"; done; git commit -qam "change $1"; }
count() { strace -f -e trace=execve -o "$d/st" "$@" >/dev/null 2>&1 || true; grep -c 'execve("/usr/lib/git-core/git"' "$d/st"; }
ch 0; git scribe wrap --hint first >/dev/null
w=""; for i in 1 2 3; do ch "w$i"; w="$w $(count git scribe wrap --hint X)"; done
t=$d/t.jsonl; : > "$t"
printf '{"session_id":"s1","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Edited three files and committed; tests pass."}\n' "$t" "$PWD" > "$d/stop.json"
s=""; for i in 1 2 3 4; do
	ch "s$i"
	printf '{"type":"assistant","message":{"id":"t%s","role":"assistant","content":[{"type":"text","text":"Edited; tests pass."}]},"uuid":"t%s","timestamp":"2026-12-01T10:00:02Z","sessionId":"s1"}\n' "$i" "$i" >> "$t"
	s="$s $(count sh -c "git scribe wrap --hook < $d/stop.json")"
done
echo "$(basename "$(dirname "$src")"): git processes per wrap:$w; per Stop:$s"
