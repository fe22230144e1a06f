package vault

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"
)

const (
	// HookInputWait bounds how long `--hook` waits for its JSON when stdin
	// stays open without sending one (a pipe the agent never closes, a
	// terminal).
	HookInputWait = 2 * time.Second
	// hookInputMax is the most hook input read (a transcript is passed by
	// path, never inline).
	hookInputMax = 16 << 20
)

// ReadHookInput reads the hook's JSON from r: until one complete JSON value
// has arrived, r ends, hookInputMax bytes were read, or wait passes —
// whichever comes first — so a stdin that is never closed cannot block a
// wrap. What was read by then is returned (possibly partial, which the
// caller reports as not JSON; possibly empty, which is no hook input).
// The reader goroutine of a stdin that never closes is left blocked in
// Read: the process exits soon after.
func ReadHookInput(r io.Reader, wait time.Duration) ([]byte, error) {
	type chunk struct {
		data []byte
		err  error
	}
	chunks := make(chan chunk, 1)
	go func() {
		lr := io.LimitReader(r, hookInputMax)
		for {
			b := make([]byte, 32<<10)
			n, err := lr.Read(b)
			chunks <- chunk{b[:n], err}
			if err != nil {
				close(chunks)
				return
			}
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var buf bytes.Buffer
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return buf.Bytes(), nil
			}
			buf.Write(c.data)
			if c.err != nil {
				if errors.Is(c.err, io.EOF) {
					return buf.Bytes(), nil
				}
				return buf.Bytes(), c.err
			}
			if t := bytes.TrimSpace(buf.Bytes()); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
				return buf.Bytes(), nil // one whole object: nothing more is coming
			}
		case <-timer.C:
			return buf.Bytes(), nil
		}
	}
}
