package memory

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// Abstractor strips project identifiers from a trap before it is recorded
// or shared (seed 000, "Abstract the pattern"): the repository's name,
// absolute and repository paths, host names and IP addresses, URLs, email
// addresses and the names of the people involved. Each becomes a
// placeholder (<project>, <path>, <host>, <url>, <email>, <user>), so the
// lesson reads in general form and can be reused elsewhere.
type Abstractor struct {
	// RepoNames are the repository's names (its directory, its remote).
	RepoNames []string
	// Roots are absolute directories whose paths are project paths (the
	// work tree, the home directory).
	Roots []string
	// Users are people's names and logins (git user.name, $USER, the
	// remote's owner).
	Users []string
	// Hosts are extra host names to strip (the remote's host).
	Hosts []string
}

var (
	emailRE = lazyre.New(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+`)
	urlRE   = lazyre.New(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>"'` + "`" + `)\]]+`)
	scpRE   = lazyre.New(`\b[A-Za-z0-9_.\-]+@[A-Za-z0-9.\-]+:[A-Za-z0-9_.~/\-]+`) // git@host:owner/repo
	ipv4RE  = lazyre.New(`\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b`)
	// hostRE matches dotted names ending in a top-level domain people use
	// for machines; file names (conn.go, main.rs) do not end in one.
	hostRE = lazyre.New(`(?i)\b(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+(?:com|net|org|io|dev|app|cloud|ai|co|us|uk|de|jp|kr|cn|fr|eu|info|biz|internal|local|localdomain|lan|corp|intra|home|test|example|svc|cluster)(?::\d+)?\b`)
	// winPathRE and unixPathRE match absolute paths; homePathRE ~/…
	winPathRE  = lazyre.New(`\b[A-Za-z]:\\[^\s"'<>|]*`)
	unixPathRE = lazyre.New(`(?:^|[\s"'(\[=:])(/[A-Za-z0-9._\-@+]+(?:/[A-Za-z0-9._\-@+]*)+)`)
	homePathRE = lazyre.New(`~/[A-Za-z0-9._\-@+/]*`)
	// relPathRE matches repository paths: two or more segments, the last
	// one a file name with an extension or a directory with a trailing slash.
	relPathRE  = lazyre.New(`(?:^|[\s"'(\[=:` + "`" + `])((?:\.{1,2}/)?[A-Za-z0-9_\-.@+]+/(?:[A-Za-z0-9_\-.@+]+/)*(?:[A-Za-z0-9_\-@+]+\.[A-Za-z0-9]{1,8}|[A-Za-z0-9_\-.@+]+/))`)
	mentionRE  = lazyre.New(`(^|[^A-Za-z0-9_])@[A-Za-z0-9](?:[A-Za-z0-9\-_]{0,38})\b`)
	multiPlace = lazyre.New(`<(path|host|url|email|user|project)>(?:[/\\]<(?:path|host|url|email|user|project)>)+`)
)

// Abstract returns s with every project identifier replaced.
func (a Abstractor) Abstract(s string) string {
	s = urlRE().ReplaceAllString(s, "<url>")
	s = scpRE().ReplaceAllString(s, "<url>")
	s = emailRE().ReplaceAllString(s, "<email>")
	// Known roots first, longest first, so /home/ada/proj/x becomes <path>.
	roots := slices.Clone(a.Roots)
	slices.SortFunc(roots, func(x, y string) int { return len(y) - len(x) })
	for _, r := range roots {
		r = strings.TrimRight(filepath.ToSlash(r), "/")
		if len(r) < 2 {
			continue
		}
		s = replaceFold(s, r, "<path>", true)
	}
	s = winPathRE().ReplaceAllString(s, "<path>")
	s = homePathRE().ReplaceAllString(s, "<path>")
	s = replaceGroup(unixPathRE(), s, "<path>")
	s = ipv4RE().ReplaceAllString(s, "<host>")
	for _, h := range a.Hosts {
		s = replaceFold(s, h, "<host>", false)
	}
	s = hostRE().ReplaceAllString(s, "<host>")
	s = replaceGroup(relPathRE(), s, "<path>")
	for _, n := range longestFirst(a.RepoNames) {
		s = replaceWord(s, n, "<project>")
	}
	for _, u := range longestFirst(a.Users) {
		s = replaceWord(s, u, "<user>")
	}
	s = mentionRE().ReplaceAllString(s, "$1@<user>")
	s = multiPlace().ReplaceAllString(s, "<$1>")
	s = strings.ReplaceAll(s, "<path>/<path>", "<path>")
	return s
}

func longestFirst(in []string) []string {
	out := slices.Clone(in)
	slices.SortFunc(out, func(x, y string) int { return len(y) - len(x) })
	return out
}

// replaceGroup replaces the first capture group of every match.
func replaceGroup(re *regexp.Regexp, s, with string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		if m[2] < 0 {
			continue
		}
		b.WriteString(s[last:m[2]])
		b.WriteString(with)
		last = m[3]
	}
	b.WriteString(s[last:])
	return b.String()
}

// replaceFold replaces every case-insensitive occurrence of old; with
// prefix, the rest of a path that follows it (/sub/dir/file.go) goes too.
func replaceFold(s, old, with string, prefix bool) string {
	if old == "" {
		return s
	}
	low, lowOld := strings.ToLower(s), strings.ToLower(old)
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(low[i:], lowOld)
		if j < 0 {
			break
		}
		j += i
		b.WriteString(s[i:j])
		b.WriteString(with)
		i = j + len(old)
		if prefix {
			for i < len(s) && !strings.ContainsRune(" \t\n\r\"'`<>()[]{},;", rune(s[i])) {
				i++
			}
		}
	}
	b.WriteString(s[i:])
	return b.String()
}

// replaceWord replaces case-insensitive whole-word occurrences of word.
func replaceWord(s, word, with string) string {
	word = strings.TrimSpace(word)
	if len(word) < 2 {
		return s
	}
	re, err := regexp.Compile(`(?i)(^|[^\pL\pN_])` + regexp.QuoteMeta(word) + `($|[^\pL\pN_])`)
	if err != nil {
		return s
	}
	// Run twice: adjacent matches share a separator.
	for range 2 {
		s = re.ReplaceAllString(s, "${1}"+with+"${2}")
	}
	return s
}
