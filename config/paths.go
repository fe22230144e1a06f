package config

import (
	"fmt"
	"path"
	"strings"
)

// MemoryIndex is the index file of memory_dir.
const MemoryIndex = "MEMORY.md"

// NamedPath is one scribe path and the setting it comes from.
type NamedPath struct {
	Key  string // dotted setting, "paths.journal"
	Path string // repo-relative, cleaned
}

// Files are the files scribe writes or keeps as its own, by setting: the
// bridge note, the journal and its archive, progress, ACTIVE-STATUS,
// CLAUDE.md, the ratify inbox and memory_dir's MEMORY.md.
func (p Paths) Files() []NamedPath {
	return []NamedPath{
		{"paths.bridge_note", clean(p.BridgeNote)},
		{"paths.journal", clean(p.Journal)},
		{"paths.journal_archive", clean(p.JournalArchive)},
		{"paths.progress", clean(p.Progress)},
		{"paths.active_status", clean(p.ActiveStatus)},
		{"paths.claude_md", clean(p.ClaudeMD)},
		{"paths.inbox", clean(p.Inbox)},
		{"paths.memory_dir (index)", clean(path.Join(p.MemoryDir, MemoryIndex))},
	}
}

// Dirs are the directories scribe writes records into, by setting.
func (p Paths) Dirs() []NamedPath {
	return []NamedPath{
		{"paths.trap_dir", clean(p.TrapDir)},
		{"paths.memory_dir", clean(p.MemoryDir)},
		{"paths.contracts", clean(p.Contracts)},
		{"paths.context_packs", clean(p.ContextPacks)},
		{"paths.drafts", clean(p.Drafts)},
		{"paths.reviews", clean(p.Reviews)},
		{"paths.skills", clean(p.Skills)},
	}
}

// wellKnown are the base names of files people and agents treat as the
// vault's wherever they sit (a project's progress.md, a CLAUDE.md in a
// subdirectory): a record scribe names itself never takes one.
var wellKnown = []string{"bridge-note.md", "journal.md", "journal-archive.md", "progress.md", "active-status.md",
	"claude.md", "agents.md", "memory.md", "todos.md", "inbox.md", "readme.md"}

// Reserved reports whether the repo-relative path rel is, or on a
// case-insensitive file system would be, one of Files, or has the base name
// of a well-known vault file; what names the setting or file it collides with.
func (p Paths) Reserved(rel string) (what string, reserved bool) {
	rel = clean(rel)
	for _, f := range p.Files() {
		if f.Path != "" && strings.EqualFold(f.Path, rel) {
			return f.Key + " (" + f.Path + ")", true
		}
	}
	base := path.Base(rel)
	for _, w := range wellKnown {
		if strings.EqualFold(base, w) {
			return base, true
		}
	}
	return "", false
}

// collision returns an error naming two settings whose paths collide: two
// files at one path (compared case-insensitively: macOS and Windows would
// make them one file), a file where a directory must be, or a path under a
// file. Nested directories, and files inside directories, are fine.
func (p Paths) collision(origins map[string]string) error {
	files, dirs := p.Files(), p.Dirs()
	from := func(key string) string {
		k, _, _ := strings.Cut(key, " ")
		if o := origins[k]; o != "" {
			return o
		}
		return string(FromDefault)
	}
	fail := func(a, b NamedPath, how string) error {
		return fmt.Errorf("%s (%q, from %s) and %s (%q, from %s) %s; every scribe file needs a path of its own: change one of them",
			a.Key, a.Path, from(a.Key), b.Key, b.Path, from(b.Key), how)
	}
	for i, a := range files {
		if a.Path == "" || a.Path == "." {
			continue
		}
		for _, b := range files[i+1:] {
			if strings.EqualFold(a.Path, b.Path) {
				return fail(a, b, "are the same file")
			}
		}
		for _, b := range append(files, dirs...) {
			if b.Path == "" || b.Path == a.Path && b.Key == a.Key {
				continue
			}
			switch {
			case strings.EqualFold(a.Path, b.Path) && b.Key != a.Key:
				return fail(a, b, "are the same path, one a file and one a directory")
			case len(b.Path) > len(a.Path) && strings.EqualFold(b.Path[:len(a.Path)+1], a.Path+"/"):
				return fail(b, a, "collide: the first lies inside the second, which is a file")
			}
		}
	}
	return nil
}

// clean is path.Clean for a repo-relative path, "" staying "".
func clean(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(strings.ReplaceAll(p, "\\", "/"))
}
