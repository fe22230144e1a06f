# Sourced by bench-real.sh and bench-ab-setup.sh: the bench repository
# they share. bench_repo SOURCE REPO DIR clones SOURCE to REPO (and cds
# there), installs the post-commit hook, writes into DIR the scripts the
# runs use — change.sh (a commit of three of the repository's tracked
# files, changed in place), turn.sh (a Claude Code transcript turn, then
# a commit of the same files each written anew and renamed over the old,
# as Claude Code's Edit writes), newturn.sh (turn.sh, then a commit adding
# a new file) and stop.json (the Stop hook's input for that transcript) —
# and makes one wrap, so that what follows measures a project's steady
# state.
# bench_files names three regular tracked files for a commit to change:
# symlinks are left out, since changing one changes its target (moby's
# CLAUDE.md -> AGENTS.md made a 2-file commit, which wrap declines).
bench_files() {
	git ls-files -s | grep '^100' | cut -f2 | grep -v '^\.' | head -n 3 | tr '\n' ' '
}

bench_repo() {
	bench_src=$1 bench_clone=$2 bench_dir=$3
	git clone -q "$bench_src" "$bench_clone"
	cd "$bench_clone"
	git scribe hook install >/dev/null
	git status >/dev/null # the index is fresh, as in a working clone
	files=$(bench_files)
	cat > "$bench_dir/change.sh" <<SH
#!/bin/sh
for f in $files; do echo \$\$ >> "\$f"; done
git commit -qam "change \$\$"
SH
	t="$bench_dir/t.jsonl"
	cat > "$bench_dir/turn.sh" <<SH
#!/bin/sh
n=\$(date +%s%N)
printf '{"type":"user","message":{"role":"user","content":"step %s"},"uuid":"u%s","timestamp":"2026-12-01T10:00:00Z","sessionId":"s1"}\n' \$n \$n >> $t
printf '{"type":"assistant","message":{"id":"t%s","role":"assistant","content":[{"type":"text","text":"Edited three files and committed; tests pass."}]},"uuid":"t%s","timestamp":"2026-12-01T10:00:02Z","sessionId":"s1"}\n' \$n \$n >> $t
for f in $files; do cp "\$f" "\$f.tmp" && echo \$\$ >> "\$f.tmp" && mv "\$f.tmp" "\$f"; done
git commit -qam "edit \$\$"
SH
	cat > "$bench_dir/newturn.sh" <<SH
#!/bin/sh
$bench_dir/turn.sh
echo \$\$ > "new-\$\$.txt" && git add "new-\$\$.txt" && git commit -qm "add new-\$\$.txt"
SH
	chmod +x "$bench_dir/change.sh" "$bench_dir/turn.sh" "$bench_dir/newturn.sh"
	printf '{"session_id":"s1","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Edited three files and committed; tests pass."}\n' "$t" "$bench_clone" > "$bench_dir/stop.json"
	"$bench_dir/change.sh" && git scribe wrap --hint "first" >/dev/null
}
