package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// decodes reports whether gitleaks' decoder finds a segment in text.
func decodes(text string) bool {
	_, segments := codec.NewDecoder().Decode(text, nil)
	return len(segments) > 0
}

// decodableSeeds are texts gitleaks' decoder finds a segment in, one per
// way it can: each must keep the decoding pass.
var decodableSeeds = []string{
	"see %41%42 there",
	"a U+0041 b",
	`say \u0041\u0042`,
	`say \\U004a`,
	"hex " + hex.EncodeToString([]byte("a secret of sixteen bytes")) + " end",
	"b64 " + base64.StdEncoding.EncodeToString([]byte("password=hunter2 again")) + " end",
	"url " + base64.RawURLEncoding.EncodeToString([]byte("token: abc?>def~~~")) + " end",
	// Base64 with its two '=' of padding.
	"pad " + base64.StdEncoding.EncodeToString([]byte("sixteen letters!")) + " end",
}

func TestMayDecodeKeepsWhatDecodes(t *testing.T) {
	for _, s := range decodableSeeds {
		if !decodes(s) {
			t.Errorf("seed %q: gitleaks' decoder finds nothing in it (fix the seed)", s)
			continue
		}
		if !mayDecode(s) {
			t.Errorf("mayDecode(%q) = false; gitleaks' decoder finds a segment in it", s)
		}
	}
}

// A vault journal decodes to nothing: the decoding pass is what mayDecode
// saves there.
func TestMayDecodeSkipsAJournal(t *testing.T) {
	text := journalText(6 << 10)
	if decodes(text) {
		t.Fatal("the journal decodes to something; pick another text")
	}
	if mayDecode(text) {
		t.Error("mayDecode says a vault journal may decode; the scan would pay gitleaks' decoding pass for nothing")
	}
}

// FuzzMayDecode holds mayDecode to gitleaks' decoder: false only where the
// decoder finds no segment.
func FuzzMayDecode(f *testing.F) {
	for _, s := range decodableSeeds {
		f.Add(s)
	}
	f.Add(journalText(1 << 10))
	f.Add("scripts/bench-real.sh and 20261201T201900Z-00000000 ==")
	f.Add(strings.Repeat("a1", 20) + "==" + strings.Repeat("Zz", 9))
	// 32 hex digits that decode to nothing printable, then base64 in the
	// same run (the decoder drops a match touching a hex one).
	f.Add("x " + strings.Repeat("ff", 16) + base64.StdEncoding.EncodeToString([]byte("Hello world, passphrase!")))
	f.Fuzz(func(t *testing.T, s string) {
		if !mayDecode(s) && decodes(s) {
			t.Fatalf("mayDecode(%q) = false, but gitleaks' decoder finds a segment in it", s)
		}
	})
}

func BenchmarkMayDecodeJournal(b *testing.B) {
	text := journalText(6 << 10)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		mayDecode(text)
	}
}
