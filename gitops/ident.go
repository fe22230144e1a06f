package gitops

import (
	"bytes"
	"context"
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
		out, err := r.Git(ctx, "var", "-l")
		if err == nil {
			c.author, c.committer, c.ok = parseVarList(out)
		}
	}()
}

// takeIdent is the prepared identities, once, while fresh.
func (r *Repo) takeIdent() (author, committer string, ok bool) {
	r.ident.mu.Lock()
	c := r.ident.ahead
	r.ident.ahead = nil
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
