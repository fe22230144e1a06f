#!/bin/sh
# Times a Stop hook (`git scribe wrap --hook`) on a small repository with a
# 1 KB and a 12 MB Claude Code transcript: before each run one more turn
# (~2 KB of real-format lines) is appended, as Claude Code does, so every
# Stop reads only the new bytes. Also times `git status` in the same
# repository, the first Stop of a session on an unread 12 MB transcript
# (read once per session), and SessionEnd at 12 MB. Medians of 30 runs.
# Needs hyperfine (apt-get install hyperfine). Usage: scripts/bench-stop.sh
set -eu
. "$(dirname "$0")/bench-env.sh"
repo="$work/repo"
git init -q -b main "$repo"
(cd "$repo" && for f in a b c d e; do echo 0 > $f.go; done && printf -- '- [ ] Parser\n- [ ] Docs\n' > progress.md &&
  echo 'project: bench' > .scribe.yaml && git add . && git commit -qm init && git scribe hook install >/dev/null)
real="$root/../shared/testdata/transcripts/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
[ -f "$real" ] || real="$root/testdata/transcripts/claude-code/short.jsonl"
# 12 MB of real Claude Code lines (the shared 3 MB transcript, repeated).
: > "$work/big.jsonl"
while [ "$(wc -c < "$work/big.jsonl")" -lt 12582912 ]; do cat "$real" >> "$work/big.jsonl"; done
head -c 1024 "$real" | head -n 1 > "$work/small.jsonl"
cat > "$work/turn.sh" <<'SH'
#!/bin/sh
# turn.sh TRANSCRIPT SESSION: append one turn, write the Stop payload.
t=$1 s=$2 n=$(date +%s%N)
printf '{"type":"user","message":{"role":"user","content":"step %s"},"uuid":"u%s","timestamp":"2026-12-01T10:00:00Z","sessionId":"%s"}\n' $n $n $s >> $t
printf '{"type":"assistant","message":{"id":"m%s","role":"assistant","content":[{"type":"tool_use","id":"tu%s","name":"Edit","input":{"file_path":"a.go","old_string":"0","new_string":"%s"}}]},"uuid":"a%s","timestamp":"2026-12-01T10:00:01Z","sessionId":"%s"}\n' $n $n $n $n $s >> $t
printf '{"type":"assistant","message":{"id":"t%s","role":"assistant","content":[{"type":"text","text":"Edited a.go; go test passes. %s"}]},"uuid":"t%s","timestamp":"2026-12-01T10:00:02Z","sessionId":"%s"}\n' $n "$(head -c 1500 /dev/zero | tr '\0' x)" $n $s >> $t
printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Edited a.go; go test passes."}\n' $s $t "$(pwd)" > "$t.stop"
SH
chmod +x "$work/turn.sh"
cd "$repo"
# The session reads its 12 MB transcript once (first Stop), timed alone.
"$work/turn.sh" "$work/big.jsonl" big
first=$( { /usr/bin/time -f %e git scribe wrap --hook < "$work/big.jsonl.stop"; } 2>&1 )
"$work/turn.sh" "$work/small.jsonl" small
git scribe wrap --hook < "$work/small.jsonl.stop"
hyperfine -N --warmup 3 --runs 30 --export-json "$work/stop.json" \
  --prepare true --command-name git-status "git -C $repo status --porcelain" \
  --prepare "$work/turn.sh $work/small.jsonl small" --command-name stop-1KB "sh -c 'git -C $repo scribe wrap --hook < $work/small.jsonl.stop'" \
  --prepare "$work/turn.sh $work/big.jsonl big" --command-name stop-12MB "sh -c 'git -C $repo scribe wrap --hook < $work/big.jsonl.stop'"
python3 - "$work/stop.json" <<'PY' 2>/dev/null || true
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f"git status {r['git-status']:.1f} ms; Stop at 1 KB {r['stop-1KB']:.1f} ms; Stop at 12 MB {r['stop-12MB']:.1f} ms "
      f"({r['stop-12MB']/r['stop-1KB']:.2f}x the 1 KB Stop)")
PY
echo "first Stop of the session on the unread 12 MB transcript: ${first}s (once per session)"
printf '{"session_id":"big","transcript_path":"%s","cwd":"%s","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}\n' "$work/big.jsonl" "$repo" > "$work/end.json"
"$work/turn.sh" "$work/big.jsonl" big
end=$( { /usr/bin/time -f %e git scribe wrap --hook --session-end < "$work/end.json"; } 2>&1 )
echo "SessionEnd at 12 MB (session finalised): ${end}s"
echo "transcript: $(wc -c < "$work/big.jsonl") bytes"
