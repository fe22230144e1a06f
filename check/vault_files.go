package check

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// memoryKinds are the directories under memory_dir that hold promoted
// memories (SPEC §2).
func memoryKinds() []string { return []string{"tacit", "corrections", "preferences"} }

// markdownUnder lists the .md files under the repo-relative dir, recursively,
// as sorted repo-relative slash paths. Symlinks are not followed; with
// skipPrivate, files and directories whose name starts with "_" (rejection
// history) are left out. A missing dir lists nothing.
func (in *Input) markdownUnder(dir string, skipPrivate bool) ([]string, error) {
	root, err := in.Repo.Abs(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		name := d.Name()
		if p != root && skipPrivate && strings.HasPrefix(name, "_") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(strings.ToLower(name), ".md") {
			return nil
		}
		rel, err := filepath.Rel(in.Repo.WorkTree, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	slices.Sort(out)
	return out, nil
}

// memoryRecords lists the promoted memory files under
// memory_dir/{tacit,corrections,preferences}/.
func (in *Input) memoryRecords() ([]string, error) {
	var out []string
	for _, kind := range memoryKinds() {
		files, err := in.markdownUnder(path.Join(in.Config.Paths.MemoryDir, kind), true)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// vaultFiles lists every existing scribe-managed text file: the journal and
// its archive, the bridge note, progress.md, ACTIVE-STATUS.md, trap records
// and everything under memory_dir.
func (in *Input) vaultFiles() ([]string, error) {
	p := in.Config.Paths
	seen := map[string]bool{}
	var out []string
	add := func(rel string) {
		if rel != "" && !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	own := []string{p.Journal, p.JournalArchive, p.BridgeNote, p.Progress, p.ActiveStatus}
	if in.Vault != "" {
		// The journal, archive, bridge note and ACTIVE-STATUS are the
		// vault's (checked there); their work-tree files are only its view.
		for _, v := range []string{p.Journal, p.JournalArchive, p.BridgeNote, p.ActiveStatus} {
			seen[v] = true
		}
		own = []string{p.Progress}
	}
	for _, rel := range own {
		if _, ok, err := in.ReadFile(rel); err != nil {
			return nil, err
		} else if ok {
			add(rel)
		}
	}
	traps, err := in.markdownUnder(p.TrapDir, false)
	if err != nil {
		return nil, err
	}
	for _, t := range traps {
		if path.Dir(t) == path.Clean(p.TrapDir) { // trap records sit directly in trap_dir
			add(t)
		}
	}
	mem, err := in.markdownUnder(p.MemoryDir, false)
	if err != nil {
		return nil, err
	}
	for _, m := range mem {
		add(m)
	}
	return out, nil
}
