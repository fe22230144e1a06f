package vault

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestReadHookInput: the hook JSON is read up to one complete value, the
// end of input, or the wait — a stdin that is never closed does not block.
func TestReadHookInput(t *testing.T) {
	t.Parallel()
	const js = `{"hook_event_name":"Stop","last_assistant_message":"Done."}`
	t.Run("complete value on a pipe that stays open", func(t *testing.T) {
		t.Parallel()
		pr, pw := io.Pipe()
		defer pw.Close()
		go func() {
			io.WriteString(pw, js[:10])
			time.Sleep(20 * time.Millisecond)
			io.WriteString(pw, js[10:]+"\n")
		}()
		start := time.Now()
		data, err := ReadHookInput(pr, time.Minute)
		if err != nil || strings.TrimSpace(string(data)) != js {
			t.Fatalf("readHookInput = %q, %v", data, err)
		}
		if time.Since(start) > 30*time.Second {
			t.Errorf("waited %v for a complete value", time.Since(start))
		}
	})
	t.Run("nothing on a pipe that stays open", func(t *testing.T) {
		t.Parallel()
		pr, pw := io.Pipe()
		defer pw.Close()
		data, err := ReadHookInput(pr, 100*time.Millisecond)
		if err != nil || len(data) != 0 {
			t.Fatalf("readHookInput = %q, %v; want nothing once the wait passed", data, err)
		}
	})
	t.Run("partial value on a pipe that stays open", func(t *testing.T) {
		t.Parallel()
		pr, pw := io.Pipe()
		defer pw.Close()
		go io.WriteString(pw, js[:20])
		data, err := ReadHookInput(pr, 100*time.Millisecond)
		if err != nil || string(data) != js[:20] {
			t.Fatalf("readHookInput = %q, %v; want the partial value", data, err)
		}
	})
	t.Run("end of input", func(t *testing.T) {
		t.Parallel()
		data, err := ReadHookInput(strings.NewReader(js), time.Minute)
		if err != nil || string(data) != js {
			t.Fatalf("readHookInput = %q, %v", data, err)
		}
	})
}
