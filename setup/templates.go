package setup

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/git-scribe/git-scribe/config"
)

const scribeYAMLTemplate = `# git-scribe configuration. Every key is optional; the values below are the
# built-in defaults. Precedence: flags > SCRIBE_* env > user config
# ($XDG_CONFIG_HOME/git-scribe/config.yaml) > this file > defaults.
# See "git scribe config" for the effective values and where they came from.

# paths:
#   bridge_note: .claude/sonmat/bridge-note.md     # overwritten by each wrap
#   journal: .claude/sonmat/journal.md             # append-only
#   journal_archive: .claude/sonmat/journal-archive.md
#   progress: progress.md                          # written by people; scribe only ticks boxes
#   active_status: ACTIVE-STATUS.md
#   claude_md: CLAUDE.md
#   trap_dir: .claude/sonmat
#   memory_dir: .claude/memory

# journal_max: 50        # entries kept before the oldest move to the archive
# bridge_tokens: 1500    # budget of "git scribe bridge"
# timezone: Local        # IANA zone for timestamps, e.g. Asia/Seoul
# lock_timeout: 30s      # how long to wait for a scribe lock
# project: ""            # project tag; default: the repository's directory name

# memory:                # project rules, traps, the compound promotion gate
#   universal_dir: ~/.claude/sonmat/memory   # universal traps (outside the repo)
#   feedback_repo: ""    # OWNER/REPO for "trap propose --submit"; empty: never submits
#   corrections_en: [wrong, incorrect, not correct, not right, not what i asked, i told you, i said, "that's not it"]
#   corrections_kr: [틀렸, 틀린, 잘못, 아니야, 아니라, 그게 아니, 말고, 하지 말라]
#   global: false        # global memory: tag every record with project_id
#   window: 50           # turns intake keeps
#   index_max_lines: 200 # MEMORY.md size that triggers a clean-up suggestion
#   disable_after: 3     # consecutive rejections that disable a detector …
#   disable_for: 168h    # … for this long (git scribe compound reactivate lifts it)

# sync:                  # git scribe sync and remote locks
#   remote: ""           # default: the branch's upstream remote, else origin
#   branch: ""           # the vault branch; default: the current branch
#   remote_lock: false   # every write also takes its lock on the remote (wrap --remote-lock)
#   network_timeout: 10s # bound on each remote-lock push/fetch; past it the write is queued

# followups:             # ACTIVE-STATUS.md sources and conversation follow-ups
#   actives: [projects/*/actives/*/todos.md]            # open checkboxes; first * = project, second = task
#   todos: [projects/*/todos.md, todos.md]              # their "## Next Session" section
#   progress: [projects/*/PROGRESS.md, progress.md]     # their "## Next Session" section
#   section: Next Session
#   cap: 15              # follow-ups ACTIVE-STATUS.md shows
#   similarity: 0.85     # edit-distance ratio at which two follow-ups are one
#   keywords_en: [next session, follow-up, follow up, "TODO:", come back to, defer, later]
#   keywords_kr: [다음 세션, 후속, 나중에, 미루, 다음에]
`

func scribeYAML(cur []byte, ok bool) ([]byte, string) {
	if ok {
		return nil, "" // a person's configuration is never rewritten
	}
	return []byte(scribeYAMLTemplate), "configuration, every default written out and explained"
}

const (
	blockBegin = "# >>> git-scribe"
	blockEnd   = "# <<< git-scribe"
)

// gitignoreBlock ignores the temp files an interrupted atomic write can
// leave next to each vault file (renameio names them ".<name><digits>").
// With local the block also ignores Claude Code's personal settings file.
func gitignoreBlock(paths config.Paths, local bool) string {
	var b strings.Builder
	b.WriteString(blockBegin + "\n# the working-tree view of refs/scribe/vault (scribe renders it; edit through git scribe)\n")
	for _, p := range []string{paths.BridgeNote, paths.Journal, paths.JournalArchive, paths.ActiveStatus} {
		if p != "" {
			b.WriteString("/" + p + "\n")
		}
	}
	b.WriteString("# temp files of interrupted atomic writes (scribe's scratch lives under .git/scribe/)\n")
	seen := map[string]bool{}
	for _, p := range []string{paths.BridgeNote, paths.Journal, paths.JournalArchive, paths.Progress, paths.ActiveStatus, paths.ClaudeMD} {
		dir, base := path.Split(p)
		line := "/" + dir + "." + base + "[0-9]*"
		if !seen[line] {
			seen[line] = true
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("/" + strings.TrimSuffix(paths.MemoryDir, "/") + "/**/.*.md[0-9]*\n")
	if local {
		b.WriteString("# Claude Code's personal settings (git scribe init --local wrote its hooks there)\n/" + ClaudeLocalSettings + "\n")
	}
	b.WriteString(blockEnd + "\n")
	return b.String()
}

func appendBlock(cur []byte, block string) []byte {
	var b bytes.Buffer
	b.Write(cur)
	if len(cur) > 0 && !bytes.HasSuffix(cur, []byte("\n")) {
		b.WriteString("\n")
	}
	if len(cur) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(block)
	return b.Bytes()
}

func gitignore(cur []byte, paths config.Paths, local bool) ([]byte, string) {
	block := gitignoreBlock(paths, local)
	if i := bytes.Index(cur, []byte(blockBegin)); i >= 0 {
		if !local && bytes.Contains(cur[i:], []byte("\n/"+ClaudeLocalSettings+"\n")) {
			block = gitignoreBlock(paths, true) // an earlier --local run's line stays
		}
		// An earlier version's block: replace it whole, keep everything else.
		j := bytes.Index(cur[i:], []byte(blockEnd))
		if j < 0 {
			return nil, "warning: the git-scribe block has no end marker (" + blockEnd + "); left alone"
		}
		end := i + j + len(blockEnd)
		if end < len(cur) && cur[end] == '\n' {
			end++
		}
		if string(cur[i:end]) == block {
			return nil, ""
		}
		next := append(append(append([]byte{}, cur[:i]...), block...), cur[end:]...)
		return next, "keep scribe's readable copies and half-written temp files out of git"
	}
	return appendBlock(cur, block), "keep scribe's readable copies and half-written temp files out of git"
}

func gitattributes(cur []byte, journal, archive string) ([]byte, string) {
	var add []string
	for _, p := range []string{journal, archive} {
		line := "/" + strings.TrimPrefix(p, "/") + " merge=union"
		if !containsLine(string(cur), line) && !containsLine(string(cur), strings.TrimPrefix(line, "/")) {
			add = append(add, line)
		}
	}
	if len(add) == 0 {
		return nil, ""
	}
	block := "# git-scribe: parallel branches append to the journal without conflicts\n" + strings.Join(add, "\n") + "\n"
	if bytes.Contains(cur, []byte("# git-scribe: parallel branches")) {
		block = strings.Join(add, "\n") + "\n"
		out := append([]byte{}, cur...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		return append(out, block...), "journal files on a branch merge without conflicts"
	}
	return appendBlock(cur, block), "journal files on a branch merge without conflicts"
}

// workflowMarker identifies a workflow init wrote (and may update).
const workflowMarker = `Written by "git scribe init --ci github".`

// workflowTemplate is the CI job init writes; %s is the version of
// git-scribe it installs (the one that wrote it).
const workflowTemplate = `# Vault hygiene for git-scribe: fails a pull request that breaks the journal's
# append-only rule, leaks a secret into a vault file, and so on, with
# annotations on the offending lines. ` + workflowMarker + `
# It checks what the pull request (or push) changed, so an old finding does
# not fail every later pull request; "git scribe init --ci github" updates it.
name: scribe-check
on:
  pull_request:
  push:
    branches: [main, master]
permissions:
  contents: read
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - name: Fetch scribe's vault (refs/scribe/*)
        run: git fetch --no-tags origin '+refs/scribe/*:refs/scribe/*' || echo "origin has no refs/scribe/* yet"
      - uses: actions/setup-go@v5
        with:
          go-version: stable
      - name: Install git-scribe %[1]s
        env:
          CGO_ENABLED: "0" # the static binary the release ships: no libc to load at each start
        run: go install github.com/git-scribe/git-scribe@%[1]s
      - name: git scribe check
        env:
          BASE: ${{ github.event.pull_request.base.sha || github.event.before }}
        run: |
          if [ -n "$BASE" ] && [ "$BASE" != 0000000000000000000000000000000000000000 ]; then
            git scribe check --format github --since "$BASE"
          else
            git scribe check --format github
          fi
`

// WorkflowFor is the workflow init writes for git-scribe at version (a
// module version or a commit; "latest" when the binary cannot name one).
func WorkflowFor(version string) string {
	if version == "" {
		version = "latest"
	}
	return fmt.Sprintf(workflowTemplate, version)
}

// workflow writes the CI job, or updates one an earlier init wrote (it
// carries workflowMarker); a workflow of the person's own is left alone.
func workflow(version string) func(cur []byte, ok bool) ([]byte, string) {
	return func(cur []byte, ok bool) ([]byte, string) {
		want := []byte(WorkflowFor(version))
		if !ok {
			return want, "CI job running git scribe check on what each pull request changed"
		}
		if bytes.Equal(cur, want) {
			return nil, ""
		}
		if bytes.Contains(cur, []byte(workflowMarker)) {
			return want, "update scribe's CI job (pinned to " + WorkflowVersionOr(version) + ", checks what the pull request changed, fetches refs/scribe/*)"
		}
		return nil, "warning: exists and was not written by git scribe init; left as it is (remove it and rerun init --ci github to get scribe's)"
	}
}

// WorkflowVersionOr names the pinned version for people.
func WorkflowVersionOr(version string) string {
	if version == "" {
		return "latest"
	}
	return version
}
