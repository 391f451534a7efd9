package mcpserver

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// pipeServer is a server for a fresh copy of project, driven over pipes
// with the transport of 'anvil mcp'.
func pipeServer(t *testing.T) (in io.WriteCloser, answers *bufio.Reader, ended <-chan error) {
	t.Helper()
	a, _ := newApp(t)
	ctx := t.Context()
	s, err := New(ctx, a.Service(), "test")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.Run(ctx, &LineTransport{In: inR, Out: outW})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return inW, bufio.NewReader(outR), done
}

type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// nextAnswer reads the next answer that is no notification.
func nextAnswer(t *testing.T, r *bufio.Reader) answer {
	t.Helper()
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("the server ended its output: %v", err)
		}
		var a struct {
			answer
			Method string `json:"method"`
		}
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("an answer that is not JSON: %q: %v", line, err)
		}
		if a.Method == "" {
			return a.answer
		}
	}
}

func send(t *testing.T, w io.Writer, line string) {
	t.Helper()
	if _, err := io.WriteString(w, line+"\n"); err != nil {
		t.Fatalf("the server stopped reading: %v", err)
	}
}

// A line that is not a JSON-RPC message, or one too long to read, is
// answered with an error (with the request's id when the line names it),
// and the session goes on: the SDK's own transport ends the session at
// the first one.
func TestBadLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	in, out, ended := pipeServer(t)
	send(t, in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if a := nextAnswer(t, out); string(a.ID) != "1" || a.Error != nil {
		t.Fatalf("initialize: %+v", a)
	}
	send(t, in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	huge := strings.Repeat("x", 20<<20)
	for _, tc := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"garbage", "this is not JSON", -32700, "null"},
		{"a truncated object", `{"jsonrpc":"2.0","id":3,"method":"tools/list"`, -32700, "3"},
		{"JSON but no message", `{"hello":"world"}`, -32600, "null"},
		{"the wrong version", `{"jsonrpc":"1.0","id":"four","method":"tools/list"}`, -32600, `"four"`},
		{"an empty batch", `[]`, -32600, "null"},
		{"20 MiB, its id last (the TypeScript SDK)", `{"method":"tools/call","params":{"name":"check_changes","arguments":{"changes":[{"path":"src/a.ts","content":"` + huge + `"}]}},"jsonrpc":"2.0","id":5}`, -32600, "5"},
		{"20 MiB, its id first (the Go SDK)", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"check_changes","arguments":{"changes":[{"path":"src/a.ts","content":"` + huge + `"}]}}}`, -32600, "6"},
		{"20 MiB of garbage", huge, -32600, "null"},
	} {
		send(t, in, tc.line)
		a := nextAnswer(t, out)
		if a.Error == nil || a.Error.Code != tc.code || string(a.ID) != tc.id {
			t.Fatalf("%s: answered %+v, want error %d with id %s", tc.name, a, tc.code, tc.id)
		}
		t.Logf("%s: %d %s", tc.name, a.Error.Code, a.Error.Message)
	}
	send(t, in, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	a := nextAnswer(t, out)
	if string(a.ID) != "7" || a.Error != nil || !strings.Contains(string(a.Result), `"check_changes"`) {
		t.Fatalf("tools/list after the bad lines: %+v", a)
	}
	in.Close()
	if err := <-ended; err != nil && err != io.EOF {
		t.Fatalf("the session ended with %v at the end of its input", err)
	}
}
