package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/internal/sentence"
)

// normalize lowercases s, turns every run of non-letter, non-digit runes into
// one space and trims: the form candidates are compared and hashed in.
func normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

// hashID is a short stable id of parts.
func hashID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// stopwords are English function words that say nothing about a topic.
var stopwords = toSet(`a an the and or but if then else when while of to in on at by for with from into onto
about as is are was were be been being am do does did done doing have has had having it its it's this that these
those there here i me my mine we us our you your yours he she they them their his her what which who whom whose
why how not no yes so too very can could should would will shall may might must just also only than more most
less some any all each every other such own same both few many much again once up down out over under off
please thanks thank okay ok let lets let's now use using used make made get got go going want need like one two
file files code way thing things something anything nothing still even because really actually sure yeah`)

// koreanParticles are endings stripped from Hangul words so "테스트를" and
// "테스트는" count as one word; longest first.
var koreanParticles = []string{"에서는", "으로는", "에게서", "이라고", "까지는", "부터는", "에서", "으로", "에게", "한테", "까지", "부터",
	"보다", "처럼", "이랑", "하고", "에는", "라고", "이나", "은", "는", "이", "가", "을", "를", "에", "의", "도", "만", "과", "와", "로", "랑", "나"}

// ambiguousParticles also end plain nouns (재시도, 서버로…): they are
// stripped only from words of four syllables or more.
var ambiguousParticles = toSet("도 나 로 만 의")

// koreanStopwords are Korean function words and request endings that say
// nothing about a topic.
var koreanStopwords = toSet(`주세요 해요 해주세요 합니다 했습니다 했어요 했네요 있어요 없어요 그리고 그런데 하지만 이거 그거 저거 여기 거기 진짜 정말 그냥 다시
이제 지금 이번 근데 그래서 알겠습니다 네 아니요 감사합니다 좀 또`)

// koreanEnding reports a verb or adjective ending (…요, …다, …죠, …까):
// not a topic.
func koreanEnding(w string) bool {
	for _, e := range []string{"요", "다", "죠", "까", "세요", "니다"} {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

// toSet is the set of words, built on first use: no package init pays
// for a word list (every hook starts the binary).
func toSet(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(words) {
			m[w] = true
		}
		return m
	})
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// words returns the content words of s: lowercase, stop words dropped,
// Korean particles stripped, at least two runes (three for Latin words).
func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(normalize(s)) {
		r, _ := utf8.DecodeRuneInString(w)
		if isHangul(r) {
			if koreanStopwords()[w] || koreanEnding(w) {
				continue
			}
			n := utf8.RuneCountInString(w)
			for _, p := range koreanParticles {
				if !strings.HasSuffix(w, p) || n-utf8.RuneCountInString(p) < 2 || (ambiguousParticles()[p] && n < 4) {
					continue
				}
				w = strings.TrimSuffix(w, p)
				break
			}
			if utf8.RuneCountInString(w) >= 2 && !koreanStopwords()[w] {
				out = append(out, w)
			}
			continue
		}
		if stopwords()[w] || utf8.RuneCountInString(w) < 3 {
			continue
		}
		if allDigits(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[w] = true
	}
	return m
}

// jaccard is |a∩b| / |a∪b|; two empty sets are 0 (nothing in common to speak of).
func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// trigrams is the character-trigram profile of s's normalized form.
func trigrams(s string) map[string]int {
	rs := []rune(" " + normalize(s) + " ")
	m := map[string]int{}
	for i := 0; i+3 <= len(rs); i++ {
		m[string(rs[i:i+3])]++
	}
	return m
}

// cosine is the cosine similarity of two count profiles.
func cosine(a, b map[string]int) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	var dot, na, nb float64
	for k, x := range a {
		na += float64(x * x)
		if y, ok := b[k]; ok {
			dot += float64(x * y)
		}
	}
	for _, y := range b {
		nb += float64(y * y)
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// oneLine joins s's whitespace runs into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// capRunes shortens s to at most n runes, ending with "…" when cut.
func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:n-1]), unicode.IsSpace) + "…"
}

// Slug turns s into a file-name-safe slug: lowercase ASCII letters, digits
// and single hyphens, at most 60 characters; "" when nothing is left (a
// Korean title, say: callers fall back to a type-and-id slug).
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// sentences splits text into sentences and lines, trimmed, non-empty:
// each line (list and quote markers dropped) through sentence.Split.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*>#"))
		out = append(out, sentence.Split(line)...)
	}
	return out
}

// containsFold reports whether s contains any keyword, case-insensitively,
// returning the first one found.
func containsFold(s string, keywords []string) (string, bool) {
	low := strings.ToLower(s)
	for _, k := range keywords {
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" {
			continue
		}
		if i := strings.Index(low, k); i >= 0 && wordBoundary(low, i, len(k)) {
			return k, true
		}
	}
	return "", false
}

// wordBoundary reports whether low[i:i+n] is not glued to Latin letters on
// either side (Hangul keywords are stems: "틀렸" matches "틀렸어").
func wordBoundary(low string, i, n int) bool {
	first, _ := utf8.DecodeRuneInString(low[i:])
	if isHangul(first) {
		return true
	}
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(low[:i])
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	if i+n < len(low) {
		r, _ := utf8.DecodeRuneInString(low[i+n:])
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}
