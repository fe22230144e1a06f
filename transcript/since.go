package transcript

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Part is what ReadSince read of a transcript that is still growing.
type Part struct {
	*Transcript
	// Offset is where the next read starts: just past the last complete
	// line read (a line still being written is left for the next read).
	Offset int64
	// Skipped counts lines longer than the cap: skipped, never held in
	// memory.
	Skipped int
}

// ReadSince parses the complete lines of the transcript at path from byte
// offset on, each at most maxLine bytes (longer lines are skipped and
// counted, at the cost of reading past them, not of holding them). The
// format is f, or detected from the lines read when f is "". A file
// shorter than offset (rewritten, truncated) is read from its start.
func ReadSince(path string, offset int64, f Format, maxLine int) (Part, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Part{}, fmt.Errorf("read transcript %s: %w", path, err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.Size() < offset {
		offset = 0
	}
	if _, err := fh.Seek(offset, io.SeekStart); err != nil {
		return Part{}, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if maxLine <= 0 {
		maxLine = 1 << 20
	}
	br := bufio.NewReaderSize(fh, 64*1024)
	var lines [][]byte
	part := Part{Offset: offset}
	var buf []byte
	for {
		buf = buf[:0]
		n, over := 0, false
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			n += len(frag)
			if !over {
				if len(buf)+len(frag) > maxLine+2 {
					over, buf = true, buf[:0]
				} else {
					buf = append(buf, frag...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err == io.EOF {
			break // an unterminated line is still being written: next time
		}
		if err != nil {
			return part, fmt.Errorf("read transcript %s: %w", path, err)
		}
		part.Offset += int64(n)
		if over {
			part.Skipped++
			continue
		}
		lines = append(lines, bytes.Clone(trimEOL(buf)))
	}
	if f == "" {
		var det detector
		for _, l := range lines {
			if det.done() {
				break
			}
			if !isBlank(l) {
				det.add(l)
			}
		}
		f = det.format()
	}
	p := newParser(f)
	t := &Transcript{Format: f}
	for _, l := range lines {
		t.feed(p, l)
	}
	p.finish(t)
	for i := range t.Turns {
		t.Turns[i].Index = i
	}
	t.Stats.Turns = len(t.Turns)
	if isSubagentPath(path) {
		for i := range t.Turns {
			t.Turns[i].Sidechain = true
		}
	}
	part.Transcript = t
	return part, nil
}
