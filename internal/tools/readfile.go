package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed descriptions/read_file.md
var readFileDescription string

// Limits of one read_file call. They keep a single answer well inside a
// model's context window while still covering most source files whole.
const (
	readMaxLines     = 2000
	readMaxBytes     = 256 << 10
	readMaxLineChars = 2000
)

// ReadFileParams are the arguments of read_file.
type ReadFileParams struct {
	Path      string `json:"path" jsonschema:"file to read, relative to the workspace root"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return (1-based); default 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return (inclusive); default: the end of the file, within the limits"`
}

// ReadFileData is the structured result of read_file.
type ReadFileData struct {
	Path       string `json:"path"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"` // last line returned; StartLine-1 when none were
	TotalLines int    `json:"total_lines"`
	Truncated  bool   `json:"truncated"` // a line or size limit cut the range short
	Content    string `json:"content"`   // the lines returned, without numbers
}

// ReadFile reads ranges of text files inside the workspace.
type ReadFile struct {
	root *workspace.Root
}

// NewReadFile returns the read_file tool for root.
func NewReadFile(root *workspace.Root) *ReadFile { return &ReadFile{root: root} }

func (t *ReadFile) Name() string        { return "read_file" }
func (t *ReadFile) Description() string { return readFileDescription }

func (t *ReadFile) Run(ctx context.Context, p ReadFileParams) (Result, error) {
	if res, ok := checkRange(p); !ok {
		return res, nil
	}
	path, res, ok := resolveFile(t.root, p.Path)
	if !ok {
		return res, nil
	}
	f, err := t.root.OpenFile(path.Rel)
	if err != nil {
		return fileError(p.Path, err), nil
	}
	defer f.Close()
	return ReadText(ctx, path.Rel, f, p)
}

func checkRange(p ReadFileParams) (Result, bool) {
	if p.StartLine < 0 || p.EndLine < 0 {
		return Errorf("start_line and end_line must be positive (lines are numbered from 1)"), false
	}
	if p.EndLine != 0 && p.EndLine < max(p.StartLine, 1) {
		return Errorf("end_line %d is before start_line %d", p.EndLine, max(p.StartLine, 1)), false
	}
	return Result{}, true
}

// ReadText answers a read_file request from r, text that label names (a
// file's path, or a staged version of it): the same numbering, limits and
// errors as reading the file. p.Path is not used.
func ReadText(ctx context.Context, label string, r io.Reader, p ReadFileParams) (Result, error) {
	if res, ok := checkRange(p); !ok {
		return res, nil
	}
	start := max(p.StartLine, 1)
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(workspace.SniffLen)
	if workspace.IsBinary(head) {
		return Errorf("%s is a binary file; read_file only reads text", label), nil
	}
	data, err := readLines(ctx, br, start, p.EndLine)
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", label, err)
	}
	data.Path = label
	if start > data.TotalLines && !(start == 1 && data.TotalLines == 0) {
		return Errorf("start_line %d is past the end of %s, which has %d lines", start, label, data.TotalLines), nil
	}
	return Result{Output: formatRead(data), Data: data}, nil
}

// readLines scans the whole file to count its lines but keeps only the
// requested range, so a 50 MB file costs a scan, not its size in memory.
func readLines(ctx context.Context, br *bufio.Reader, start, end int) (ReadFileData, error) {
	d := ReadFileData{StartLine: start, EndLine: start - 1}
	var b strings.Builder
	for n := 1; ; n++ {
		if n%65536 == 0 && ctx.Err() != nil {
			return d, ctx.Err()
		}
		line, err := readLine(br, readMaxLineChars)
		if err == io.EOF && line.text == "" && !line.cut {
			break
		}
		if err != nil && err != io.EOF {
			return d, err
		}
		d.TotalLines = n
		wanted := n >= start && (end == 0 || n <= end)
		if wanted && !d.Truncated {
			if n-start >= readMaxLines || b.Len()+len(line.text) > readMaxBytes {
				d.Truncated = true
			} else {
				text := line.text
				if line.cut {
					text += " … [line cut at 2000 characters]"
				}
				b.WriteString(strings.ToValidUTF8(text, "\uFFFD"))
				b.WriteByte('\n')
				d.EndLine = n
			}
		}
		if err == io.EOF {
			break
		}
	}
	d.Content = b.String()
	return d, nil
}

type lineRead struct {
	text string
	cut  bool // the line was longer than the limit
}

// readLine reads one line without its terminator ("\n" or "\r\n"), keeping
// at most limit bytes of it and discarding the rest.
func readLine(br *bufio.Reader, limit int) (lineRead, error) {
	var buf []byte
	var l lineRead
	for {
		chunk, err := br.ReadSlice('\n')
		body := bytes.TrimSuffix(chunk, []byte("\n"))
		if room := limit - len(buf); len(body) > room {
			buf = append(buf, body[:max(room, 0)]...)
			l.cut = true
		} else {
			buf = append(buf, body...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.text = strings.TrimSuffix(string(buf), "\r")
		return l, err
	}
}

func formatRead(d ReadFileData) string {
	var b strings.Builder
	switch {
	case d.TotalLines == 0:
		fmt.Fprintf(&b, "%s is empty (0 lines)\n", d.Path)
		return b.String()
	case d.EndLine < d.StartLine:
		fmt.Fprintf(&b, "%s: no lines returned from line %d (%d lines in file)\n", d.Path, d.StartLine, d.TotalLines)
	default:
		fmt.Fprintf(&b, "%s: lines %d-%d of %d\n", d.Path, d.StartLine, d.EndLine, d.TotalLines)
	}
	n := d.StartLine
	for _, line := range strings.SplitAfter(d.Content, "\n") {
		if line == "" {
			continue
		}
		fmt.Fprintf(&b, "%6d\t%s", n, line)
		n++
	}
	if d.Truncated {
		fmt.Fprintf(&b, "[output limited to %d lines / %d KB; continue with start_line=%d]\n", readMaxLines, readMaxBytes>>10, d.EndLine+1)
	}
	return b.String()
}

// resolveFile resolves a path the model gave and checks that it names an
// existing regular file. On failure it returns the tool error to report.
func resolveFile(root *workspace.Root, p string) (workspace.Path, Result, bool) {
	if strings.TrimSpace(p) == "" {
		return workspace.Path{}, Errorf("path is required"), false
	}
	path, err := root.Resolve(p)
	if err != nil {
		return path, pathError(err), false
	}
	info, err := root.Stat(path.Rel)
	if err != nil {
		return path, fileError(p, err), false
	}
	if info.IsDir() {
		return path, Errorf("%s is a directory, not a file; use list_files to see what it contains", path.Rel), false
	}
	if !info.Mode().IsRegular() {
		return path, Errorf("%s is not a regular file", path.Rel), false
	}
	return path, Result{}, true
}

// pathError turns a workspace resolution error into a tool error.
func pathError(err error) Result {
	var pe *workspace.PathError
	if errors.As(err, &pe) && errors.Is(err, workspace.ErrOutside) {
		return Errorf("%s is outside the workspace; only files under the workspace root can be used", pe.Path)
	}
	return Errorf("%v", err)
}

func fileError(p string, err error) Result {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("%s does not exist; use list_files or text_search to find the right path", p)
	case errors.Is(err, fs.ErrPermission):
		return Errorf("%s cannot be read: permission denied", p)
	default:
		return Errorf("%s: %v", p, err)
	}
}
