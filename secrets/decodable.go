package secrets

import (
	"encoding/base64"
	"encoding/hex"
)

// mayDecode reports whether gitleaks' decoder (codec.Decoder.Decode) could
// find an encoded segment in text. false is a proof that it finds none, so
// the decoding pass is skipped; true only says it must run. The decoder
// matches one expression over the whole text (percent | unicode | hex |
// base64, leftmost first, each greedy) on Go's backtracking-free engine:
// on a vault journal it was most of the scan's time (1.5 of 2.6 ms on
// moby's, BenchmarkRedactJournal), and there it never decodes anything.
//
// The proof: without a "%XX", a "U+XXXX" or a "\uXXXX" (X a hex digit, u in
// either case) the percent and unicode patterns match nowhere, and what is
// left matches only inside runs of base64 characters ([\w/+-]) of 16 or
// more: the run's leading hex digits when there are 32 or more of them
// (then the rest of the run as base64, when 16 or more are left), or else
// the whole run, each base64 match taking up to two '=' after it. A match
// is a segment only when it decodes to printable ASCII (codec's decodeHex
// and decodeBase64), which mayDecode tries on each. FuzzMayDecode holds
// it to the decoder.
func mayDecode(text string) bool {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '%':
			if i+2 < len(text) && isHex(text[i+1]) && isHex(text[i+2]) {
				return true
			}
		case c == '+':
			if i > 0 && (text[i-1] == 'U' || text[i-1] == 'u') && hexRun(text[i+1:], 4) {
				return true
			}
		case c == '\\':
			if j := i + 1; j < len(text) && (text[j] == 'u' || text[j] == 'U') && hexRun(text[j+1:], 4) {
				return true
			}
		}
	}
	for i := 0; i < len(text); {
		if !isBase64Char(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && isBase64Char(text[i]) {
			i++
		}
		if i-start >= 16 && runMayDecode(text, start, i) {
			return true
		}
	}
	return false
}

// runMayDecode tries the matches the decoder's expression makes in the
// maximal base64 run text[start:end].
func runMayDecode(text string, start, end int) bool {
	h := start
	for h < end && isHex(text[h]) {
		h++
	}
	if h-start >= 32 {
		if hexDecodes(text[start:h]) {
			return true
		}
		start = h
		if end-start < 16 {
			return false
		}
	}
	eq := end
	for eq < len(text) && eq < end+2 && text[eq] == '=' {
		eq++
	}
	return base64Decodes(text[start:eq])
}

// hexDecodes is codec's decodeHex not returning "": an even length, a
// decimal digit somewhere, every byte printable.
func hexDecodes(s string) bool {
	if len(s)%2 != 0 || !hasDigit(s) {
		return false
	}
	b, err := hex.DecodeString(s)
	return err == nil && allPrintable(b)
}

// base64Decodes is codec's decodeBase64 not returning "": one of
// 0-9 + / - _ somewhere, and standard or raw URL base64 of printable bytes.
func base64Decodes(s string) bool {
	likely := false
	for i := 0; i < len(s) && !likely; i++ {
		c := s[i]
		likely = '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
	}
	if !likely {
		return false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && allPrintable(b) {
			return true
		}
	}
	return false
}

func allPrintable(b []byte) bool {
	for _, c := range b {
		if !printable(c) {
			return false
		}
	}
	return true
}

// printable is codec's printable ASCII: tab to '~'.
func printable(c byte) bool { return '\x08' < c && c < '\x7f' }

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			return true
		}
	}
	return false
}

func hexRun(s string, n int) bool {
	if len(s) < n {
		return false
	}
	for i := 0; i < n; i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isBase64Char is the decoder's [\w\/+-] (Go's \w is ASCII).
func isBase64Char(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '/' || c == '+' || c == '-'
}
