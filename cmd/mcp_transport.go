package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpStdio is the server's stdio transport: newline-delimited JSON-RPC, as
// the SDK's IOTransport, with two differences a client relies on:
//
//   - a line that is not a JSON-RPC message is answered with a JSON-RPC
//     error (parse error / invalid request) and the session goes on, where
//     the SDK's transport ends the session;
//   - end of input ends the session only after every call read before it
//     has been answered, where the SDK's transport drops calls in flight. A
//     request the server sends after the client stopped writing (an
//     elicitation) is answered at once with an error: nobody can reply.
type mcpStdio struct {
	in  io.Reader
	out io.Writer
	// drain bounds the wait for calls in flight at end of input.
	drain time.Duration
}

// mcpMaxLine bounds one inbound message (the SDK's default is 10 MiB too).
const mcpMaxLine = 10 << 20

// Connect implements mcp.Transport.
func (t *mcpStdio) Connect(context.Context) (mcp.Connection, error) {
	drain := t.drain
	if drain == 0 {
		drain = 5 * time.Minute
	}
	c := &stdioConn{
		out:      t.out,
		incoming: make(chan jsonrpc.Message, 16),
		closed:   make(chan struct{}),
		ended:    make(chan struct{}),
		inFlight: map[jsonrpc.ID]bool{},
		asked:    map[jsonrpc.ID]bool{},
		drain:    drain,
	}
	go c.readLoop(t.in)
	return c, nil
}

type stdioConn struct {
	out      io.Writer
	writeMu  sync.Mutex
	incoming chan jsonrpc.Message
	ended    chan struct{} // closed once input ended and every call was answered
	closed   chan struct{}
	once     sync.Once
	drain    time.Duration

	mu       sync.Mutex
	inFlight map[jsonrpc.ID]bool // calls read and not answered yet
	asked    map[jsonrpc.ID]bool // the server's calls the client has not answered
	inputEnd bool                // the client's input ended
	idle     chan struct{}       // closed when inputEnd and inFlight empties
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) readLoop(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r, mcpMaxLine)
		if len(bytes.TrimSpace(line)) > 0 {
			if !c.deliver(line) {
				return
			}
		}
		if err != nil {
			c.endOfInput()
			return
		}
	}
}

// readLine reads one line; a line longer than max is read to its end and
// returned cut (it then fails to decode and is answered with an error).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= max {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// deliver decodes one line and hands it to the session; a malformed line
// is answered here. It reports false once the connection is closed.
func (c *stdioConn) deliver(line []byte) bool {
	line = bytes.TrimSpace(line)
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.replyMalformed(line, err)
		return true
	}
	c.mu.Lock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			c.inFlight[m.ID] = true
		}
	case *jsonrpc.Response:
		delete(c.asked, m.ID)
	}
	c.mu.Unlock()
	select {
	case c.incoming <- msg:
		return true
	case <-c.closed:
		return false
	}
}

// replyMalformed answers a line that is not a JSON-RPC message: with the
// line's id when it has one, else with a null id (JSON-RPC 2.0, section 5).
func (c *stdioConn) replyMalformed(line []byte, err error) {
	code, msg := int64(jsonrpc.CodeInvalidRequest), "invalid request: "+err.Error()
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	switch {
	case !json.Valid(line):
		code, msg = jsonrpc.CodeParseError, "parse error: the line is not JSON"
		probe.ID = nil
	case len(line) > 0 && line[0] == '[':
		msg = "invalid request: JSON-RPC batches are not supported; send one message per line"
	default:
		_ = json.Unmarshal(line, &probe)
	}
	id := []byte("null")
	if len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || (probe.ID[0] >= '0' && probe.ID[0] <= '9')) {
		id = probe.ID
	}
	text, _ := json.Marshal(msg)
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, text)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = io.WriteString(c.out, frame)
}

// endOfInput answers the server's unanswered calls with an error (the
// client can no longer reply), then lets the session end once the calls in
// flight are answered, or after the drain time.
func (c *stdioConn) endOfInput() {
	c.mu.Lock()
	c.inputEnd = true
	c.idle = make(chan struct{})
	if len(c.inFlight) == 0 {
		close(c.idle)
	}
	asked := c.asked
	c.asked = map[jsonrpc.ID]bool{}
	idle := c.idle
	c.mu.Unlock()
	for id := range asked {
		c.noReply(id)
	}
	select {
	case <-idle:
	case <-time.After(c.drain):
	case <-c.closed:
	}
	close(c.ended)
}

// noReply delivers the error answer to a server call made after the
// client's input ended.
func (c *stdioConn) noReply(id jsonrpc.ID) {
	resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: "the client closed its input; nobody can answer"}}
	select {
	case c.incoming <- resp:
	case <-c.ended:
	case <-c.closed:
	}
}

// Read implements mcp.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.incoming: // what arrived before the end goes first
		return m, nil
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.ended:
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	noReply := false
	c.mu.Lock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		defer c.answered(m.ID)
	case *jsonrpc.Request:
		if m.IsCall() {
			if c.inputEnd {
				noReply = true
			} else {
				c.asked[m.ID] = true
			}
		}
	}
	c.mu.Unlock()
	if noReply {
		go c.noReply(msg.(*jsonrpc.Request).ID)
		return nil
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return errors.New("connection closed")
	default:
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// answered marks a call answered (after its response was written).
func (c *stdioConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inFlight, id)
	if c.inputEnd && len(c.inFlight) == 0 {
		select {
		case <-c.idle:
		default:
			close(c.idle)
		}
	}
}

// Close implements mcp.Connection.
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}
