package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-scribe/git-scribe/transcript"
)

// BenchmarkReadClaudeLong reads the real 1,512-line, 3 MB session.
func BenchmarkReadClaudeLong(b *testing.B) {
	needShared(b)
	data, err := os.ReadFile(filepath.Join(sharedDir, mainSession+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		f    transcript.Format
	}{{"given", transcript.FormatClaude}, {"detected", ""}} {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				tr, err := transcript.Read(bytes.NewReader(data), tt.f)
				if err != nil || len(tr.Turns) != 293 {
					b.Fatalf("Read: %v, %d turns", err, len(tr.Turns))
				}
			}
		})
	}
}

// BenchmarkReadCodex reads the Codex fixture repeated to about 1 MB.
func BenchmarkReadCodex(b *testing.B) {
	one, err := os.ReadFile(codexRollout)
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(append(one, '\n'), (1<<20)/len(one))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := transcript.Read(bytes.NewReader(data), transcript.FormatCodex); err != nil {
			b.Fatal(err)
		}
	}
}
