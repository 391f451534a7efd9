package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	root := newRoot(t, map[string]string{
		"src/a.ts":     "one\ntwo\r\nthree\nfour\nfive",
		"empty.txt":    "",
		"long.txt":     long.String(),
		"wide.txt":     strings.Repeat("x", 5000) + "\nshort\n",
		"img.png":      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"link-out":     "->" + filepath.Join(outside, "secret.txt"),
		"dir/file.txt": "x",
	})
	read := Adapt(NewReadFile(root))

	tests := []struct {
		name      string
		args      string
		wantErr   bool
		contains  []string
		absent    []string
		wantStart int
		wantEnd   int
		wantTotal int
	}{
		{name: "whole file", args: `{"path":"src/a.ts"}`, contains: []string{"src/a.ts: lines 1-5 of 5", "     2\ttwo\n", "     5\tfive\n"}, absent: []string{"\r"}, wantStart: 1, wantEnd: 5, wantTotal: 5},
		{name: "range", args: `{"path":"src/a.ts","start_line":2,"end_line":3}`, contains: []string{"lines 2-3 of 5", "     3\tthree"}, absent: []string{"four", "one"}, wantStart: 2, wantEnd: 3, wantTotal: 5},
		{name: "end past eof", args: `{"path":"src/a.ts","start_line":4,"end_line":99}`, contains: []string{"lines 4-5 of 5"}, wantStart: 4, wantEnd: 5, wantTotal: 5},
		{name: "start past eof", args: `{"path":"src/a.ts","start_line":9}`, wantErr: true, contains: []string{"past the end", "5 lines"}},
		{name: "end before start", args: `{"path":"src/a.ts","start_line":4,"end_line":2}`, wantErr: true, contains: []string{"before start_line"}},
		{name: "negative", args: `{"path":"src/a.ts","start_line":-1}`, wantErr: true},
		{name: "empty file", args: `{"path":"empty.txt"}`, contains: []string{"empty (0 lines)"}, wantStart: 1, wantEnd: 0},
		{name: "line cap", args: `{"path":"long.txt"}`, contains: []string{"lines 1-2000 of 2500", "continue with start_line=2001"}, absent: []string{"line 2001\n"}, wantStart: 1, wantEnd: 2000, wantTotal: 2500},
		{name: "wide line cut", args: `{"path":"wide.txt"}`, contains: []string{"line cut at 2000 characters", "\tshort"}, wantStart: 1, wantEnd: 2, wantTotal: 2},
		{name: "absolute inside", args: fmt.Sprintf(`{"path":%q}`, filepath.Join(root.Dir(), "src/a.ts")), contains: []string{"lines 1-5"}, wantStart: 1, wantEnd: 5, wantTotal: 5},
		{name: "binary", args: `{"path":"img.png"}`, wantErr: true, contains: []string{"binary file"}},
		{name: "missing", args: `{"path":"src/nope.ts"}`, wantErr: true, contains: []string{"does not exist"}},
		{name: "directory", args: `{"path":"dir"}`, wantErr: true, contains: []string{"is a directory", "list_files"}},
		{name: "dotdot", args: `{"path":"../etc/passwd"}`, wantErr: true, contains: []string{"outside the workspace"}},
		{name: "absolute outside", args: `{"path":"/etc/passwd"}`, wantErr: true, contains: []string{"outside the workspace"}},
		{name: "symlink out", args: `{"path":"link-out"}`, wantErr: true, contains: []string{"outside the workspace"}, absent: []string{"secret\n"}},
		{name: "missing path arg", args: `{}`, wantErr: true, contains: []string{"invalid arguments", "path"}},
		{name: "wrong type", args: `{"path":3}`, wantErr: true, contains: []string{"invalid arguments"}},
		{name: "unknown field", args: `{"path":"src/a.ts","lines":"1-3"}`, wantErr: true, contains: []string{"invalid arguments"}},
		{name: "not json", args: `{"path":`, wantErr: true, contains: []string{"not valid JSON"}},
		{name: "array", args: `["src/a.ts"]`, wantErr: true, contains: []string{"expected a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, read, tt.args)
			if res.IsError != tt.wantErr {
				t.Fatalf("IsError = %v, want %v; output:\n%s", res.IsError, tt.wantErr, res.Output)
			}
			for _, s := range tt.contains {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Output)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(res.Output, s) {
					t.Errorf("output has %q:\n%s", s, res.Output)
				}
			}
			if tt.wantErr {
				return
			}
			d := res.Data.(ReadFileData)
			if d.StartLine != tt.wantStart || d.EndLine != tt.wantEnd || d.TotalLines != tt.wantTotal {
				t.Errorf("data range = %d-%d of %d, want %d-%d of %d", d.StartLine, d.EndLine, d.TotalLines, tt.wantStart, tt.wantEnd, tt.wantTotal)
			}
		})
	}
}

// A 50 MB file is scanned, not loaded: the answer comes back with the right
// line count and only the requested lines.
func TestReadFileHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	root := newRoot(t, nil)
	line := strings.Repeat("abcdefghij", 9) + "\n" // 91 bytes
	n := 50<<20/len(line) + 1
	f, err := os.Create(filepath.Join(root.Dir(), "big.log"))
	if err != nil {
		t.Fatal(err)
	}
	buf := bytes.Repeat([]byte(line), n)
	f.Write(buf)
	f.Close()

	res := call(t, Adapt(NewReadFile(root)), `{"path":"big.log","start_line":100000,"end_line":100002}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	d := res.Data.(ReadFileData)
	if d.TotalLines != n || d.EndLine != 100002 || strings.Count(d.Content, "\n") != 3 {
		t.Fatalf("got %d-%d of %d (%d lines of content), want 100000-100002 of %d", d.StartLine, d.EndLine, d.TotalLines, strings.Count(d.Content, "\n"), n)
	}
	res = call(t, Adapt(NewReadFile(root)), `{"path":"big.log"}`)
	if d := res.Data.(ReadFileData); !d.Truncated || len(d.Content) > readMaxBytes {
		t.Fatalf("whole read: truncated=%v, %d bytes", d.Truncated, len(d.Content))
	}
}

func TestReadFileByteCap(t *testing.T) {
	// 1,000 lines of 1,000 bytes: the 256 KB cap hits before the line cap.
	row := strings.Repeat("y", 999) + "\n"
	root := newRoot(t, map[string]string{"rows.txt": strings.Repeat(row, 1000)})
	res := call(t, Adapt(NewReadFile(root)), `{"path":"rows.txt"}`)
	d := res.Data.(ReadFileData)
	if !d.Truncated || d.EndLine != readMaxBytes/1000 {
		t.Fatalf("truncated=%v end=%d, want true and %d", d.Truncated, d.EndLine, readMaxBytes/1000)
	}
	if !strings.Contains(res.Output, fmt.Sprintf("continue with start_line=%d", d.EndLine+1)) {
		t.Errorf("no continuation hint:\n%s", res.Output[len(res.Output)-200:])
	}
}
