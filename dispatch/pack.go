package dispatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// maxPackBytes caps a context pack.
const maxPackBytes = 2 << 20

// Pack is a frozen context pack: the exact bytes skills read, and their
// sha256.
type Pack struct {
	Card    string `json:"card"`
	Path    string `json:"path"`
	ShaPath string `json:"sha_path"`
	SHA     string `json:"sha256"`
	// Sources are the notes frozen into it, in order.
	Sources []PackSource `json:"sources"`
	// Stale lists sources that changed (or vanished) since the freeze.
	Stale []string `json:"stale,omitempty"`
	// Data is the pack file's bytes.
	Data []byte `json:"-"`
}

// PackSource is one note in a pack.
type PackSource struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Sha256Hex is the lower-case hex sha256 of data.
func Sha256Hex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// ShaLine is the sidecar's content, in `sha256sum` format, so
// `sha256sum -c` verifies a pack from its directory.
func ShaLine(sha, pack string) string { return sha + "  " + path.Base(pack) + "\n" }

// packSources lists what a card's pack holds: the card, its contract (the
// author's notes for the fill), then the context notes the card and the
// contract name, in order, each once. A context entry ending in "/" takes
// every note under that directory.
func packSources(s *Snapshot, card Card, ct *Contract) ([]string, error) {
	var out []string
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(card.Path)
	if ct != nil {
		add(ct.Path)
	}
	refs := append([]string(nil), card.Context...)
	if ct != nil {
		refs = append(refs, ct.Context...)
	}
	for _, ref := range refs {
		if dir, ok := strings.CutSuffix(strings.TrimSpace(ref), "/"); ok {
			var files []string
			for f := range s.Files {
				if under(f, clean(dir)) {
					files = append(files, f)
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("card %s: context %q holds no notes", card.Path, ref)
			}
			slices.Sort(files)
			for _, f := range files {
				add(f)
			}
			continue
		}
		p, err := s.resolve(ref)
		if err != nil {
			return nil, fmt.Errorf("card %s: context %w", card.Path, err)
		}
		add(p)
	}
	return out, nil
}

// codeFence returns a backtick fence longer than any run of backticks in
// text, so text sits in it verbatim and nothing in it can close it.
func codeFence(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// buildPack renders a pack from its sources' contents: each source quoted
// verbatim in a fenced block under its own "## Source:" heading, so that its
// frontmatter and headings are never read as the pack's own structure (by
// an agent, or by a markdown renderer: unquoted, a note's frontmatter is a
// setext heading and its title a second H1). It is deterministic:
// freezing unchanged sources gives the same bytes (and so no commit).
func buildPack(card Card, packPath string, sources []string, read func(string) ([]byte, error)) (Pack, error) {
	p := Pack{Card: card.Path, Path: packPath, ShaPath: ShaPath(packPath)}
	var body strings.Builder
	fmt.Fprintf(&body, "# Context pack: %s\n", notes.OneLine(card.Title))
	for _, src := range sources {
		data, err := read(src)
		if err != nil {
			return Pack{}, fmt.Errorf("freeze %s: read %s: %w", card.Path, src, err)
		}
		p.Sources = append(p.Sources, PackSource{Path: src, SHA256: Sha256Hex(data)})
		text := strings.TrimRight(string(data), "\n")
		fence := codeFence(text)
		fmt.Fprintf(&body, "\n## Source: %s\n\n%smarkdown\n%s\n%s\n", src, fence, text, fence)
	}
	type srcYAML struct {
		Path   string `yaml:"path"`
		SHA256 string `yaml:"sha256"`
	}
	fm := struct {
		Type    string    `yaml:"type"`
		Card    string    `yaml:"card"`
		Sources []srcYAML `yaml:"sources"`
	}{Type: "context-pack", Card: card.Path}
	for _, s := range p.Sources {
		fm.Sources = append(fm.Sources, srcYAML(s))
	}
	var head bytes.Buffer
	enc := yaml.NewEncoder(&head)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return Pack{}, fmt.Errorf("freeze %s: %w", card.Path, err)
	}
	enc.Close()
	p.Data = []byte("---\n" + head.String() + "---\n" + body.String())
	if len(p.Data) > maxPackBytes {
		return Pack{}, fmt.Errorf("freeze %s: the pack would be %d bytes, over the %d-byte limit; name fewer context notes", card.Path, len(p.Data), maxPackBytes)
	}
	p.SHA = Sha256Hex(p.Data)
	return p, nil
}

// ErrPackNotFrozen means a card has no frozen pack yet.
var ErrPackNotFrozen = errors.New("no frozen context pack")

// loadPack reads a frozen pack from the work tree and verifies it against
// its sidecar: the sha256 returned is of the bytes actually read.
func loadPack(repo *gitops.Repo, card Card, packPath string) (Pack, error) {
	p := Pack{Card: card.Path, Path: packPath, ShaPath: ShaPath(packPath)}
	data, ok, err := readFile(repo, packPath)
	if err != nil {
		return p, err
	}
	if !ok {
		return p, ErrPackNotFrozen
	}
	p.Data, p.SHA = data, Sha256Hex(data)
	side, ok, err := readFile(repo, p.ShaPath)
	if err != nil {
		return p, err
	}
	recorded, _, _ := strings.Cut(strings.TrimSpace(string(side)), " ")
	if !ok || recorded != p.SHA {
		return p, fmt.Errorf("pack %s does not match its recorded sha256 in %s (edited by hand, or never frozen by scribe); re-freeze it with `git scribe pack freeze %s`",
			packPath, p.ShaPath, card.Path)
	}
	if fm, _, err := ParseFrontmatter(string(data)); err == nil {
		if list, ok := fm["sources"].([]any); ok {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					p.Sources = append(p.Sources, PackSource{Path: fmt.Sprint(m["path"]), SHA256: fmt.Sprint(m["sha256"])})
				}
			}
		}
	}
	for _, src := range p.Sources {
		cur, ok, err := readFile(repo, src.Path)
		if err != nil || !ok || Sha256Hex(cur) != src.SHA256 {
			p.Stale = append(p.Stale, src.Path)
		}
	}
	return p, nil
}
