package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LineTransport is the transport of 'anvil mcp': newline-delimited
// JSON-RPC on In and Out, as the SDK's stdio transport, except that a bad
// line does not end the session. The SDK's transport ends it at the first
// line that is not a JSON-RPC message, or is longer than its limit, and
// the client loses its server for the rest of its session. Here each line
// is screened before the SDK reads it: a line that is not JSON is answered
// with a parse error (-32700), one that is JSON but no JSON-RPC message
// with an invalid request (-32600), one over MaxLine is read to its
// newline, not kept, and answered with an invalid request; each with the
// id of the request when its line names one at its top level (else null),
// so the client's call gets its answer. The next line is served as usual.
type LineTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxLine bounds the bytes of one line kept in memory;
	// 0 means [mcp.DefaultMaxLineLength] (16 MiB).
	MaxLine int
}

// Connect starts screening In. The screen ends at the end of In, or once
// the connection is closed and it has a line to hand on; until then it
// may wait in a read of In (as the SDK's own transport does).
func (t *LineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = mcp.DefaultMaxLineLength
	}
	pr, pw := io.Pipe()
	out := &lineWriter{w: t.Out}
	go func() {
		pw.CloseWithError(screen(t.In, pw, out, limit))
	}()
	// The screen bounds the lines: the SDK's own bound (which counts what
	// its decoder reads ahead too) is off.
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lineWriter writes each message in one Write, so that the SDK's answers
// and the screen's never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves Out open: it is the process's stdout.
func (*lineWriter) Close() error { return nil }

// screen reads in line by line, hands each JSON-RPC message to next and
// answers every other line on out. It returns io.EOF at the end of in,
// else why it stopped.
func screen(in io.Reader, next io.Writer, out io.Writer, limit int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, size, tail, err := readLine(r, limit)
		if size > 0 {
			if answer := screenLine(line, size, tail, limit); answer != nil {
				if _, werr := out.Write(answer); werr != nil {
					return werr
				}
			} else if _, werr := next.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
	}
}

// tailKept is how much of the end of an over-long line is kept, to find
// an id at its end.
const tailKept = 512

// readLine reads one line of r without its end (\n or \r\n). size is the
// line's length; past limit, line holds only its first limit bytes and
// tail its last tailKept. err is io.EOF after the last line.
func readLine(r *bufio.Reader, limit int) (line []byte, size int, tail []byte, err error) {
	for {
		chunk, rerr := r.ReadSlice('\n')
		size += len(chunk)
		if room := limit - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		if size > limit {
			tail = append(tail, chunk...)
			if len(tail) > tailKept {
				tail = append(tail[:0], tail[len(tail)-tailKept:]...)
			}
		}
		if errors.Is(rerr, bufio.ErrBufferFull) {
			continue
		}
		if rerr == nil {
			// The newline (and a carriage return before it) is no part of
			// the line.
			size--
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			tail = bytes.TrimSuffix(bytes.TrimSuffix(tail, []byte("\n")), []byte("\r"))
		}
		if len(bytes.TrimSpace(line)) == 0 && size <= limit {
			size = 0 // a blank line is no message
		}
		return line, size, tail, rerr
	}
}

// screenLine returns the answer to a line that is no JSON-RPC message
// Anvil can read, or nil for one to hand on.
func screenLine(line []byte, size int, tail []byte, limit int) []byte {
	if size > limit {
		return errorLine(frameID(line, tail), jsonrpc.CodeInvalidRequest, fmt.Sprintf(
			"Invalid Request: a message of %d bytes is over the %d bytes Anvil reads (%s); it was not read. "+
				"Send a smaller one (for a change set: fewer or smaller files per call)", size, limit, mib(limit)))
	}
	if err := json.Unmarshal(line, new(any)); err != nil {
		return errorLine(frameID(line, nil), jsonrpc.CodeParseError, fmt.Sprintf(
			"Parse error: the line is not JSON (%v); Anvil reads one JSON-RPC message per line", err))
	}
	if err := checkMessages(line); err != nil {
		return errorLine(frameID(line, nil), jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %v", err))
	}
	return nil
}

// checkMessages reports why valid JSON is no JSON-RPC message or batch of
// them, as the SDK's transport reads them.
func checkMessages(line []byte) error {
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) == nil {
		if len(batch) == 0 {
			return errors.New("an empty batch")
		}
		for i, raw := range batch {
			if _, err := jsonrpc.DecodeMessage(raw); err != nil {
				return fmt.Errorf("message %d of the batch: %v", i+1, err)
			}
		}
		return nil
	}
	_, err := jsonrpc.DecodeMessage(line)
	return err
}

// idAtEnd is an id that ends an object: `"id": 7}` at the very end of a
// line is its top-level id (a nested one would be followed by more
// closing braces).
var idAtEnd = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}\s*$`)

// frameID finds the id of a request in a line that may be cut short: a
// top-level "id" member read from its start (where Go clients write it),
// or ending it (where the TypeScript SDK writes it). It is null when
// neither names one.
func frameID(head, tail []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				break
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				break
			}
			if key == "id" && isID(v) {
				return v
			}
		}
	}
	if tail == nil {
		tail = head
	}
	if m := idAtEnd.FindSubmatch(tail); m != nil && isID(m[1]) {
		return m[1]
	}
	return json.RawMessage("null")
}

// isID reports whether v is a JSON-RPC id: a string or an integer.
func isID(v json.RawMessage) bool {
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return false
	}
	switch x := x.(type) {
	case string:
		return true
	case json.Number:
		_, err := x.Int64()
		return err == nil
	}
	return false
}

// errorLine is a JSON-RPC error answer, with its newline.
func errorLine(id json.RawMessage, code int, message string) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
	return append(b, '\n')
}

func mib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
