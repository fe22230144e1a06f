// Package skills owns the prompt contracts scribe hands to agents: the
// embedded defaults (body_fill, the review lanes, scribe's own bridge and
// journal prose, the compound analyzers and qa_judge), a repository's
// overrides in .agents/skills/<name>.md, and the $var templating that
// renders them.
//
// Each contract states the exact output shape the dispatcher parses, on a
// line "Output shape: <shape>". The package only reads: it never runs an
// agent, never reads a vault note and never writes a file.
package skills

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
)

//go:embed defaults/*.md
var embedded embed.FS

// Shape is the output shape a skill's contract promises and the dispatcher
// parses.
type Shape string

// Output shapes.
const (
	// ShapeDraft is a markdown body ending with "## Introduced candidates".
	ShapeDraft Shape = "draft"
	// ShapeReview is a "verdict: clean|issues|blocking" first line, then
	// "## Findings" and "## Introduced candidates".
	ShapeReview Shape = "review"
	// ShapeBridge is a bridge note in the SPEC §2 format.
	ShapeBridge Shape = "bridge"
	// ShapeJournal is one plain line of at most 72 characters.
	ShapeJournal Shape = "journal"
	// ShapeCandidates is a JSON array of memory candidates.
	ShapeCandidates Shape = "candidates"
	// ShapeScore is a JSON object of five 0.0–1.0 scores.
	ShapeScore Shape = "score"
)

// Skill names scribe itself uses.
const (
	BodyFill           = "body_fill"
	Bridge             = "bridge"
	Journal            = "journal"
	QAJudge            = "qa_judge"
	CompoundTacit      = "compound_tacit"
	CompoundCorrection = "compound_correction"
	CompoundPattern    = "compound_pattern"
	CompoundPreference = "compound_preference"
	// ReviewPrefix + lane names a review lane's skill ("review_canon").
	ReviewPrefix = "review_"
)

// ShapeOf is the output shape the dispatcher parses for a skill name: the
// shape is the dispatcher's contract, so an override cannot change it.
// Unknown names (a contract's own agent_profile) are fills.
func ShapeOf(name string) Shape {
	switch name {
	case Bridge:
		return ShapeBridge
	case Journal:
		return ShapeJournal
	case QAJudge:
		return ShapeScore
	case CompoundTacit, CompoundCorrection, CompoundPattern, CompoundPreference:
		return ShapeCandidates
	}
	if strings.HasPrefix(name, ReviewPrefix) {
		return ShapeReview
	}
	return ShapeDraft
}

// ShapeLine is how a contract states its shape; the fake runner reads it.
const ShapeLine = "Output shape: "

// maxSkillBytes caps an override file.
const maxSkillBytes = 256 << 10

var nameRE = lazyre.New(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// ErrUnknownSkill means neither the repository nor the defaults have it.
var ErrUnknownSkill = errors.New("unknown skill")

// Skill is one prompt contract.
type Skill struct {
	Name string
	// Text is the template, frontmatter removed.
	Text string
	// Source is "embedded" or the repo-relative override path.
	Source string
	// Shape is what the dispatcher parses from the agent's reply.
	Shape Shape
}

// Library finds skills: a repository override first, else the default.
type Library struct {
	// Root is the repository's work tree ("" for defaults only).
	Root string
	// Dir is the repo-relative override directory, e.g. ".agents/skills".
	Dir string
}

// Defaults lists the embedded skill names, sorted.
func Defaults() []string {
	ents, _ := fs.ReadDir(embedded, "defaults")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".md"))
	}
	slices.Sort(out)
	return out
}

// Get returns the named skill: .agents/skills/<name>.md when the
// repository has one (a regular file, not a symlink), else the embedded
// default.
func (l Library) Get(name string) (Skill, error) {
	if !nameRE().MatchString(name) {
		return Skill{}, fmt.Errorf("skill name %q: use lower-case letters, digits, _ and -", name)
	}
	if l.Root != "" && l.Dir != "" {
		rel := path.Join(l.Dir, name+".md")
		abs := filepath.Join(l.Root, filepath.FromSlash(rel))
		fi, err := os.Lstat(abs)
		switch {
		case err == nil && !fi.Mode().IsRegular():
			return Skill{}, fmt.Errorf("skill override %s is not a regular file (a symlink?); replace it with a file", rel)
		case err == nil && fi.Size() > maxSkillBytes:
			return Skill{}, fmt.Errorf("skill override %s is %d bytes, over the %d-byte limit", rel, fi.Size(), maxSkillBytes)
		case err == nil:
			data, err := os.ReadFile(abs)
			if err != nil {
				return Skill{}, fmt.Errorf("read skill override %s: %w", rel, err)
			}
			return Skill{Name: name, Text: stripFrontmatter(string(data)), Source: rel, Shape: ShapeOf(name)}, nil
		case !errors.Is(err, fs.ErrNotExist):
			return Skill{}, fmt.Errorf("read skill override %s: %w", rel, err)
		}
	}
	data, err := embedded.ReadFile("defaults/" + name + ".md")
	if err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w: add %s/%s.md or use one of %s", name, ErrUnknownSkill, l.dir(), name, strings.Join(Defaults(), ", "))
	}
	return Skill{Name: name, Text: string(data), Source: "embedded", Shape: ShapeOf(name)}, nil
}

func (l Library) dir() string {
	if l.Dir == "" {
		return ".agents/skills"
	}
	return l.Dir
}

// Render fills the skill's $vars; an unknown one is an error naming the
// skill's source.
func (s Skill) Render(vars map[string]string) (string, error) {
	out, err := Render(s.Text, vars)
	if err != nil {
		return "", fmt.Errorf("skill %s (%s): %w", s.Name, s.Source, err)
	}
	return out, nil
}

// stripFrontmatter drops a leading "---" block (an override's notes to
// people); the rest is the template.
func stripFrontmatter(s string) string {
	t := strings.TrimPrefix(s, "\uFEFF")
	if !strings.HasPrefix(t, "---\n") && !strings.HasPrefix(t, "---\r\n") {
		return s
	}
	rest := t[strings.IndexByte(t, '\n')+1:]
	for off := 0; off < len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		next := len(rest)
		if end >= 0 {
			line, next = rest[off:off+end], off+end+1
		}
		if l := strings.TrimRight(line, "\r"); l == "---" || l == "..." {
			return strings.TrimLeft(rest[next:], "\r\n")
		}
		off = next
	}
	return s // never closed: not frontmatter
}
