package gitops

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A vault commit's object is written with its trees, in the one
// `git unpack-objects` (vaulttree.go), when the identities git would give
// it are known: `git var -l`, started beside a write's reads
// (PrepareIdent), says them as commit-tree would compute them — user.name
// and user.email, GIT_AUTHOR_* and GIT_COMMITTER_* honoured, the time of
// the call — and what of the config changes the object (a commit
// encoding). Without them, or with anything unusual, commit-tree writes it.

// identFresh bounds how old the identities' time may be: the commit's
// dates are when `git var` ran.
const identFresh = 2 * time.Second

// commitIdent is one `git var -l` read: both identities, when usable.
type commitIdent struct {
	done              chan struct{}
	at                time.Time
	author, committer string
	ok                bool
}

// identState is the Repo's prefetched identities.
type identState struct {
	mu    sync.Mutex
	ahead *commitIdent
}

// PrepareIdent starts reading the identities a commit made now would
// carry, for the next vault commit of this process (once).
func (r *Repo) PrepareIdent(ctx context.Context) {
	r.ident.mu.Lock()
	defer r.ident.mu.Unlock()
	if r.ident.ahead != nil {
		return
	}
	c := &commitIdent{done: make(chan struct{}), at: time.Now()}
	r.ident.ahead = c
	go func() {
		defer close(c.done)
		from, keepable := r.identSources()
		zone := zoneOf(c.at)
		var k identKept
		if keepable && ReadKept(r.identPath(), &k) && k.From == from && k.Zone == zone {
			stamp := fmt.Sprintf(" %d %s", c.at.Unix(), zone)
			c.author, c.committer, c.ok = k.Author+stamp, k.Committer+stamp, true
			return
		}
		out, err := r.Git(ctx, "var", "-l")
		if err == nil {
			c.author, c.committer, c.ok = parseVarList(out)
		}
		author, az := splitIdent(c.author)
		committer, cz := splitIdent(c.committer)
		if c.ok && keepable && az == zone && cz == zone {
			// Kept when git's zone is this process's, with what the
			// identities were computed from.
			_ = WriteKept(r.identPath(), identKept{From: from, Author: author, Committer: committer, Zone: zone})
		}
	}()
}

// The identities git gives a commit depend on the config and the
// environment, and on nothing else that changes between two commands but
// the time: so `git var -l`'s are kept (ReadKept) with what they were
// computed from — every variable git reads for them, the size, time and
// inode of every config file git may read — and its answer is given,
// with the time of now, while all of that is the same. A config that
// includes another file (whose changes this could not see), a date set
// in the environment, or a zone this process does not share with git,
// and git is asked each time.

// identKept is one `git var -l`'s identities without their time, and the
// sha256 of what they came from (identSources: the variables' values may
// hold what no file should, a token in GIT_CONFIG_PARAMETERS).
type identKept struct {
	From              string
	Author, Committer string // "Name <email>"
	Zone              string // ±hhmm, as git gave it
}

func (r *Repo) identPath() string { return filepath.Join(r.ScribeDir(), "ident.cache") }

// identEnv are the variables git's identities and config depend on.
var identEnv = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
	"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"HOME", "XDG_CONFIG_HOME", "USER", "LOGNAME", "TZ", "LANG", "LC_ALL"}

// identSources names, by a sha256, what the identities are computed from;
// keepable is false where that cannot be said (above).
func (r *Repo) identSources() (from string, keepable bool) {
	if os.Getenv("GIT_AUTHOR_DATE") != "" || os.Getenv("GIT_COMMITTER_DATE") != "" {
		return "", false
	}
	return r.configSources("include")
}

// configSources names, by a sha256, the config git reads and what it
// reads it from: the variables of identEnv and every config file git may
// read, by size, time, inode and whether it is there. ok is false where
// that cannot be said: variables that add config git reads from nowhere
// else, GIT_DIR or GIT_WORK_TREE set by the caller, or a config file
// holding any of words (lower case; "include": a file it pulls in, whose
// changes this does not see).
func (r *Repo) configSources(words ...string) (string, bool) {
	if len(r.env) > 0 || os.Getenv("GIT_CONFIG_COUNT") != "" {
		return "", false
	}
	var b strings.Builder
	for _, k := range identEnv {
		v, set := os.LookupEnv(k)
		fmt.Fprintf(&b, "%s=%v:%q\n", k, set, v)
	}
	host, _ := os.Hostname() // an address git makes up when none is set
	fmt.Fprintf(&b, "host=%q uid=%d\n", host, os.Getuid())
	home, xdg := os.Getenv("HOME"), os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	files := []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config"), "/etc/gitconfig",
		os.Getenv("GIT_CONFIG_SYSTEM"), os.Getenv("GIT_CONFIG_GLOBAL"),
		filepath.Join(r.CommonDir, "config"), filepath.Join(r.GitDir, "config.worktree")}
	if gitBin, err := exec.LookPath("git"); err == nil {
		// git's own sysconfdir: /etc for /usr/bin/git, PREFIX/etc otherwise.
		files = append(files, filepath.Join(filepath.Dir(filepath.Dir(gitBin)), "etc", "gitconfig"))
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		fi, err := os.Stat(f)
		if err != nil {
			fmt.Fprintf(&b, "%s -\n", f)
			continue
		}
		fmt.Fprintf(&b, "%s %d %d %d\n", f, fi.Size(), fi.ModTime().UnixNano(), inodeOf(fi))
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(f)
			if err != nil {
				return "", false
			}
			data = bytes.ToLower(data)
			for _, w := range words {
				if bytes.Contains(data, []byte(w)) {
					return "", false
				}
			}
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:]), true
}

// zoneOf is t's zone offset as git writes it (±hhmm).
func zoneOf(t time.Time) string { return t.Format("-0700") }

// splitIdent is a valid "Name <email> seconds ±hhmm" as "Name <email>"
// and its zone.
func splitIdent(id string) (who, zone string) {
	if !validIdent(id) {
		return "", ""
	}
	gt := strings.LastIndexByte(id, '>')
	return id[:gt+1], strings.Fields(id[gt+1:])[1]
}

// peekIdent is what takeIdent will give, leaving it to be taken: a
// speculated write's object is the write's own.
func (r *Repo) peekIdent() (author, committer string, ok bool) { return r.preparedIdent(false) }

// takeIdent is the prepared identities, once, while fresh.
func (r *Repo) takeIdent() (author, committer string, ok bool) { return r.preparedIdent(true) }

// preparedIdent is the identities PrepareIdent read, while fresh; take
// hands them out for good.
func (r *Repo) preparedIdent(take bool) (author, committer string, ok bool) {
	r.ident.mu.Lock()
	c := r.ident.ahead
	if take {
		r.ident.ahead = nil
	}
	r.ident.mu.Unlock()
	if c == nil {
		return "", "", false
	}
	<-c.done
	if !c.ok || time.Since(c.at) > identFresh {
		return "", "", false
	}
	return c.author, c.committer, true
}

// parseVarList reads `git var -l`: the config's entries, then the
// variables; the identities are the last lines naming them (a config
// value spanning lines cannot stand in for them: they come after it). A
// commit encoding other than UTF-8 is an object this process does not
// write.
func parseVarList(out []byte) (author, committer string, ok bool) {
	for _, line := range strings.Split(string(out), "\n") {
		key, val, found := strings.Cut(line, "=")
		if !found {
			continue
		}
		switch strings.ToLower(key) {
		case "i18n.commitencoding":
			if e := strings.ToLower(val); e != "utf-8" && e != "utf8" {
				return "", "", false
			}
		}
		switch key {
		case "GIT_AUTHOR_IDENT":
			author = val
		case "GIT_COMMITTER_IDENT":
			committer = val
		}
	}
	return author, committer, validIdent(author) && validIdent(committer)
}

// validIdent is "Name <email> seconds ±hhmm" with no byte that would break
// the object's header.
func validIdent(s string) bool {
	lt, gt := strings.LastIndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt || strings.ContainsAny(s, "\n\x00") || !utf8.ValidString(s) {
		return false
	}
	f := strings.Fields(s[gt+1:])
	return len(f) == 2 && len(f[1]) == 5 && (f[1][0] == '+' || f[1][0] == '-')
}

// commitObject is the raw commit commit-tree writes for tree, parents,
// the identities and msg (which it takes as given). ok is false where
// commit-tree would change the message (not UTF-8: it re-encodes it).
func commitObject(tree string, parents []string, author, committer, msg string) ([]byte, bool) {
	if !utf8.ValidString(msg) || strings.IndexByte(msg, 0) >= 0 {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteString("tree " + tree + "\n")
	for _, p := range parents {
		if p != "" {
			b.WriteString("parent " + p + "\n")
		}
	}
	b.WriteString("author " + author + "\n")
	b.WriteString("committer " + committer + "\n\n")
	b.WriteString(msg)
	return b.Bytes(), true
}
