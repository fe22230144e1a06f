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
git clone -q "$src" "$repo"
cd "$repo"
git scribe hook install >/dev/null
git status >/dev/null
files=$(git ls-files | grep -v '^\.' | head -n 3 | tr '\n' ' ')
cat > "$w/change.sh" <<SH
#!/bin/sh
for f in $files; do echo \$\$ >> "\$f"; done
git commit -qam "change \$\$"
SH
chmod +x "$w/change.sh"
"$w/change.sh" && git scribe wrap --hint "first" >/dev/null
t="$w/t.jsonl"
cat > "$w/turn.sh" <<SH
#!/bin/sh
n=\$(date +%s%N)
printf '{"type":"user","message":{"role":"user","content":"step %s"},"uuid":"u%s","timestamp":"2026-12-01T10:00:00Z","sessionId":"s1"}\n' \$n \$n >> $t
printf '{"type":"assistant","message":{"id":"t%s","role":"assistant","content":[{"type":"text","text":"Edited three files and committed; tests pass."}]},"uuid":"t%s","timestamp":"2026-12-01T10:00:02Z","sessionId":"s1"}\n' \$n \$n >> $t
$w/change.sh
SH
chmod +x "$w/turn.sh"
printf '{"session_id":"s1","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Edited three files and committed; tests pass."}\n' "$t" "$repo" > "$w/stop.json"
[ -n "${NOSTOP:-}" ] || { "$w/turn.sh" && git scribe wrap --hook < "$w/stop.json"; }
cat > "$w/env" <<SH
export GIT_CONFIG_NOSYSTEM=1 HOME="$w/home"
cd "$repo"
SH
