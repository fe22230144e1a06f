#!/bin/sh
# Times `git commit` of a 3-file change with no hook, with a no-op shell
# hook (the floor a hook can reach), with scribe's installed post-commit hook
# (shell recorder), and with a hook that runs the Go binary
# (`git scribe hook post-commit`) for comparison; median of 30 runs each,
# then the same commits in 30 paired rounds (scripts/bench-pair.py), which
# a load that moves between hyperfine's blocks of runs does not skew, and
# last the two hooks crossed over two repositories.
# Needs hyperfine (apt-get install hyperfine). Usage: scripts/bench-hook.sh
set -eu
. "$(dirname "$0")/bench-env.sh"
for v in none noop shell binary; do
  git init -q -b main "$work/$v"
  (cd "$work/$v" && for f in a b c; do echo 0 > $f; done && git add . && git commit -qm init)
done
git -C "$work/shell" scribe hook install >/dev/null
printf '#!/bin/sh\nexit 0\n' > "$work/noop/.git/hooks/post-commit"
chmod +x "$work/noop/.git/hooks/post-commit"
printf '#!/bin/sh\nexec git scribe hook post-commit\n' > "$work/binary/.git/hooks/post-commit"
chmod +x "$work/binary/.git/hooks/post-commit"
change='n=$(date +%s%N); for f in a b c; do echo $n >> $f; done; git add a b c'
hyperfine -N --warmup 5 --runs 30 --export-json "$work/hook.json" \
  --prepare "sh -c 'cd $work/none && $change'" --command-name no-hook "git -C $work/none commit -q -m x" \
  --prepare "sh -c 'cd $work/noop && $change'" --command-name noop-hook "git -C $work/noop commit -q -m x" \
  --prepare "sh -c 'cd $work/shell && $change'" --command-name scribe-hook "git -C $work/shell commit -q -m x" \
  --prepare "sh -c 'cd $work/binary && $change'" --command-name go-binary-hook "git -C $work/binary commit -q -m x"
python3 - "$work/hook.json" <<'PY' 2>/dev/null || true
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
n, z = r["no-hook"], r["noop-hook"]
for k in ("noop-hook", "scribe-hook", "go-binary-hook"):
    print(f"{k}: median {r[k]:.1f} ms vs no hook {n:.1f} ms: +{r[k]-n:.1f} ms ({r[k]/n:.2f}x); vs a no-op shell hook +{r[k]-z:.1f} ms (target <= 2 ms)")
PY
echo "== paired rounds (scripts/bench-pair.py; ratio to the no-op hook)"
python3 "$root/scripts/bench-pair.py" 30 \
  "cd $work/noop && $change ;; exec git -C $work/noop commit -q -m x" \
  "cd $work/none && $change ;; exec git -C $work/none commit -q -m x" \
  "cd $work/shell && $change ;; exec git -C $work/shell commit -q -m x"
echo "queued records: $(ls "$work/shell/.git/scribe/queue" | wc -l) (shell), $(ls "$work/binary/.git/scribe/queue" | wc -l) (binary)"
# Two repositories differ by more than their hooks (a pair of fresh ones
# gave 1-2 ms between them with the same hook): the two hooks crossed over
# two repositories, 40 paired rounds a pass.
echo "== crossed over (the no-op and scribe's hook swapped between two repositories)"
for v in x y; do
  git init -q -b main "$work/$v"
  (cd "$work/$v" && for f in a b c; do echo 0 > $f; done && git add . && git commit -qm init)
done
git -C "$work/x" scribe hook install >/dev/null
cp "$work/x/.git/hooks/post-commit" "$work/scribe-hook"
for pass in "x y" "y x"; do
  set -- $pass
  cp "$work/scribe-hook" "$work/$1/.git/hooks/post-commit"
  cp "$work/noop/.git/hooks/post-commit" "$work/$2/.git/hooks/post-commit"
  echo "scribe's hook in $1, the no-op in $2:"
  python3 "$root/scripts/bench-pair.py" 40 \
    "cd $work/$2 && $change ;; exec git -C $work/$2 commit -q -m x" \
    "cd $work/$1 && $change ;; exec git -C $work/$1 commit -q -m x"
done
