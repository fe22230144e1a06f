package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const claudeText = `{"type":"assistant","message":{"id":"m%d","role":"assistant","content":[{"type":"text","text":"turn %d"}]},"uuid":"u%d","timestamp":"2026-12-01T10:00:00Z"}`

func line(i int) string {
	return strings.NewReplacer("%d", string(rune('0'+i))).Replace(claudeText) + "\n"
}

func TestReadSinceReadsOnlyNewCompleteLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(line(1)+line(2)), 0o644)
	p, err := ReadSince(path, 0, "", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Turns) != 2 || p.Format != FormatClaude || p.Offset != int64(len(line(1)+line(2))) {
		t.Fatalf("first read: %d turns, format %q, offset %d", len(p.Turns), p.Format, p.Offset)
	}
	// A line still being written (no newline) is left for the next read.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line(3) + `{"type":"assistant","mess`)
	f.Close()
	q, err := ReadSince(path, p.Offset, p.Format, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Turns) != 1 || q.Turns[0].Text != "turn 3" || q.Offset != p.Offset+int64(len(line(3))) {
		t.Fatalf("second read: %+v offset %d", q.Turns, q.Offset)
	}
	// A file shorter than the offset (rewritten) is read from its start.
	os.WriteFile(path, []byte(line(4)), 0o644)
	r, err := ReadSince(path, q.Offset, FormatClaude, 1<<20)
	if err != nil || len(r.Turns) != 1 || r.Turns[0].Text != "turn 4" {
		t.Fatalf("rewritten file: %+v %v", r.Turns, err)
	}
}

func TestReadSinceSkipsAHugeLineWithoutHoldingIt(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, _ := os.Create(path)
	f.WriteString(line(1))
	f.WriteString(`{"type":"user","message":{"role":"user","content":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i < 50; i++ {
		f.Write(chunk)
	}
	f.WriteString("\"}}\n" + line(2))
	f.Close()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := ReadSince(path, 0, "", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if p.Skipped != 1 || len(p.Turns) != 2 {
		t.Fatalf("skipped %d, turns %d; want 1 skipped line and the 2 turns around it", p.Skipped, len(p.Turns))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Fatalf("reading past a 50 MB line allocated %d MB; the cap is 1 MB", grew>>20)
	}
}
