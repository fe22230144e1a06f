package check

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

// dispatchPacks is SCR014: every landed draft and review's pack_sha names a
// version of its context pack that exists — the pack file now, or any
// version of it in HEAD's history (a pack may be re-frozen after the
// artifact landed) — and every frozen pack still matches its sha256 sidecar.
type dispatchPacks struct{ meta }

func newDispatchPacks() Rule {
	return dispatchPacks{meta{
		id: "SCR014", name: "dispatch-pack-sha", severity: SeverityError,
		describe: "every draft and review an agent wrote names the version of its context pack it read (pack_sha), that version exists (now or in history), and frozen packs match their checksum file",
	}}
}

func (dispatchPacks) Check(ctx context.Context, in *Input) ([]Finding, error) {
	p := in.Config.Paths
	var artifacts []string
	for _, dir := range []string{p.Drafts, p.Reviews} {
		if dir == "" {
			continue
		}
		files, err := in.markdownUnder(dir, false)
		if err != nil {
			return nil, err
		}
		artifacts = append(artifacts, files...)
	}
	var out []Finding
	known := map[string]map[string]bool{} // pack → sha256s of its versions
	for _, a := range artifacts {
		data, ok, err := in.ReadFile(a)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		fields, lines := frontmatterScalars(string(data))
		sha := fields["pack_sha"]
		if sha == "" {
			continue // a person's draft: no receipt to verify
		}
		pack := fields["pack"]
		if pack == "" {
			out = append(out, Finding{File: a, Line: lines["pack_sha"], Message: "the artifact has a pack_sha but names no pack",
				Fix: "restore its `pack:` frontmatter line (the dispatcher writes both)"})
			continue
		}
		versions, ok := known[pack]
		if !ok {
			if versions, err = packVersions(ctx, in, pack); err != nil {
				return nil, err
			}
			known[pack] = versions
		}
		if !versions[strings.ToLower(sha)] {
			out = append(out, Finding{File: a, Line: lines["pack_sha"],
				Message: fmt.Sprintf("pack_sha %s matches no version of %s, now or in history", shorten(sha, 16), pack),
				Fix:     "the artifact cites a pack that was never committed or was rewritten; re-run the dispatch for it, or restore the pack from history"})
		}
	}
	packs, err := in.markdownUnder(p.ContextPacks, false)
	if err != nil {
		return nil, err
	}
	for _, pk := range packs {
		side := strings.TrimSuffix(pk, ".md") + ".sha256"
		sdata, ok, err := in.ReadFile(side)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		data, _, err := in.ReadFile(pk)
		if err != nil {
			return nil, err
		}
		recorded, _, _ := strings.Cut(strings.TrimSpace(string(sdata)), " ")
		if recorded != sha256Hex(data) {
			out = append(out, Finding{File: pk, Line: 1, Severity: SeverityWarning,
				Message: fmt.Sprintf("the frozen pack no longer matches %s (edited after the freeze)", path.Base(side)),
				Fix:     "packs are frozen, not edited: re-freeze it with `git scribe pack freeze CARD`"})
		}
	}
	return out, nil
}

// packVersions hashes the pack file in the work tree and every version of
// it HEAD's history holds.
func packVersions(ctx context.Context, in *Input, pack string) (map[string]bool, error) {
	out := map[string]bool{}
	if data, ok, err := in.ReadFile(pack); err != nil {
		return nil, err
	} else if ok {
		out[sha256Hex(data)] = true
	}
	if in.Head == "" {
		return out, nil
	}
	commits, err := logRaw(ctx, in, in.Head, []string{pack})
	if err != nil {
		return nil, err
	}
	for _, c := range commits {
		if ch, ok := c.Changes[pack]; !ok || isZeroID(ch.New) {
			continue
		}
		files, err := in.Repo.ReadFiles(ctx, c.SHA, []string{pack})
		if err != nil {
			return nil, err
		}
		if data, ok := files[pack]; ok {
			out[sha256Hex(data)] = true
		}
	}
	return out, nil
}

func sha256Hex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// frontmatterScalars reads "key: value" lines of a note's leading
// frontmatter block (quotes trimmed) and the 1-based line of each.
func frontmatterScalars(text string) (map[string]string, map[string]int) {
	fields, lines := map[string]string{}, map[string]int{}
	rows := strings.Split(strings.TrimPrefix(text, "\uFEFF"), "\n")
	if len(rows) == 0 || strings.TrimSpace(rows[0]) != "---" {
		return fields, lines
	}
	for i := 1; i < len(rows); i++ {
		row := strings.TrimRight(rows[i], "\r")
		if row == "---" || row == "..." {
			break
		}
		k, v, ok := strings.Cut(row, ":")
		if !ok || strings.HasPrefix(k, " ") || strings.HasPrefix(k, "-") {
			continue
		}
		fields[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		lines[strings.TrimSpace(k)] = i + 1
	}
	return fields, lines
}
