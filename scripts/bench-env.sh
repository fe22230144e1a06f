# Sourced by the bench-*.sh scripts: the one set-up they share. It builds
# the binary (and, with BENCH_GENREPO=1, the repository generator) into a
# temporary directory removed on exit, and gives git a throw-away HOME and
# identity, so no user configuration (hooks, signing, aliases) is timed.
# Sets root (this repository) and work (the temporary directory).
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CGO_ENABLED=0: the static binary the release packages and the README's
# install line build (a cgo build loads libc first: ~0.7 ms a start).
(cd "$root" && CGO_ENABLED=0 go build -o "$work/bin/git-scribe" .)
if [ "${BENCH_GENREPO:-}" = 1 ]; then
	(cd "$root" && go build -o "$work/bin/genrepo" ./scripts/genrepo)
fi
export PATH="$work/bin:$PATH" GIT_CONFIG_NOSYSTEM=1 HOME="$work"
git config --global user.email bench@example.com
git config --global user.name Bench
