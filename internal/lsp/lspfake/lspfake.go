// Package lspfake is a misbehaving language server for tests: it speaks
// just enough LSP over stdio to be checked with, and injects the faults a
// real server can have (never publishing, publishing late or for a stale
// version, crashing in the middle of a check, hanging, holding its pipes
// open in a detached child).
//
// A test binary becomes the server when its TestMain calls [Main] first:
//
//	func TestMain(m *testing.M) {
//		lspfake.Main(getenv) // the test binary's own; returns unless ANVIL_FAKE_LSP is set
//		os.Exit(m.Run())
//	}
//
// and a server spec runs os.Args[0] with [Env] in its environment.
//
// Diagnostics are computed from the text alone: every line containing
// "ERROR" gets an error diagnostic (code "fake"). The server knows nothing
// of dependants, except with "disk": then a line "uses NAME" is an error
// unless some file, open or as the server last read it from disk, has a
// line "provides NAME". Like a real server, it reads the disk once (at its
// initial load) and again only for the files a didChangeWatchedFiles
// names.
package lspfake

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// EnvVar selects the behaviour: a comma-separated list of words.
//
//	pull            declare and answer textDocument/diagnostic (else push)
//	progress        wrap the work after each change in "diagnosing" progress
//	noversion       publish without a version
//	never-publish   push nothing, answer no pull
//	late=DUR        publish (or answer pulls) DUR late once shown a text
//	                with ERROR in it
//	slow=DUR        answer pulls one at a time, each DUR after the last
//	stale           publish the previous version's diagnostics, labelled
//	                with that version
//	die-after-start exit just after the handshake, every time
//	exit-at-start   exit with status 3 before reading anything, saying
//	                why on stderr (a server that cannot run here)
//	crash-on-change exit when first shown a text with ERROR in it (the
//	                change under test)
//	hang-on-change  stop reading and answering at that point
//	detach          start a detached child that holds stdout open
//	deaf            stop reading right after the handshake
//	ignore-exit     ignore shutdown and exit
//	disk            read the workspace's files at the initial load (see
//	                above); didChangeWatchedFiles reads them again
//	load=DUR        the initial load (progress) ends DUR after it read
//	                the disk: a large workspace loading
const EnvVar = "ANVIL_FAKE_LSP"

// Env returns the environment entry that makes a test binary this server.
func Env(behaviour string) string { return EnvVar + "=" + behaviour }

// Main runs the fake server and exits if [EnvVar] is set in the
// process's environment (read with getenv); otherwise it returns at once.
func Main(getenv func(string) string) {
	spec := getenv(EnvVar)
	if spec == "" {
		return
	}
	s := &server{out: bufio.NewWriter(os.Stdout), docs: map[string]doc{}, flags: map[string]string{}, disk: map[string]string{}}
	for _, f := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		s.flags[k] = v
	}
	if _, ok := s.flags["exit-at-start"]; ok {
		fmt.Fprintln(os.Stderr, "fake: starting")
		fmt.Fprintln(os.Stderr, "fake: cannot load the workspace: the project needs node 99")
		os.Exit(3)
	}
	if _, ok := s.flags["detach"]; ok {
		// A grandchild in a session of its own, holding our stdout.
		cmd := exec.Command("sleep", "3600")
		cmd.Stdout = os.Stdout
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		_ = cmd.Start()
	}
	s.serve(bufio.NewReader(os.Stdin))
	os.Exit(0)
}

type doc struct {
	version int
	text    string
	prev    string // the text before the latest change
}

type server struct {
	busy  sync.Mutex // serialises slow answers
	mu    sync.Mutex
	out   *bufio.Writer
	docs  map[string]doc
	flags map[string]string
	token int
	root  string            // the workspace's directory, from initialize
	disk  map[string]string // by URI: the files as last read from disk ("disk")
}

func (s *server) has(flag string) bool { _, ok := s.flags[flag]; return ok }

// delay is how long to wait before answering for uri: "late" applies
// once the document holds the change under test.
func (s *server) delay(uri string) time.Duration {
	s.mu.Lock()
	text := s.docs[uri].text
	s.mu.Unlock()
	if !strings.Contains(text, "ERROR") {
		return 0
	}
	d, _ := time.ParseDuration(s.flags["late"])
	return d
}

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

func (s *server) serve(in *bufio.Reader) {
	for {
		m, err := read(in)
		if err != nil {
			return
		}
		switch m.Method {
		case "initialize":
			var p struct {
				RootURI string `json:"rootUri"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.root = strings.TrimPrefix(p.RootURI, "file://")
			caps := map[string]any{"textDocumentSync": 1}
			if s.has("pull") {
				caps["diagnosticProvider"] = map[string]any{"interFileDependencies": false, "workspaceDiagnostics": false}
			}
			s.reply(m.ID, map[string]any{"capabilities": caps, "serverInfo": map[string]any{"name": "lspfake", "version": "1"}})
		case "initialized":
			if s.has("disk") {
				s.readDisk()
			}
			if s.has("progress") {
				tok := s.progressBegin("diagnosing initial workspace load")
				load, _ := time.ParseDuration(s.flags["load"])
				time.AfterFunc(load, func() { s.progressEnd(tok) })
			}
			for s.has("deaf") {
				time.Sleep(time.Hour)
			}
			if s.has("die-after-start") {
				time.Sleep(50 * time.Millisecond)
				os.Exit(3)
			}
		case "shutdown":
			if !s.has("ignore-exit") {
				s.reply(m.ID, nil)
			}
		case "exit":
			if !s.has("ignore-exit") {
				os.Exit(0)
			}
		case "textDocument/didOpen":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if strings.Contains(p.TextDocument.Text, "ERROR") && s.fault() {
				return
			}
			s.mu.Lock()
			s.docs[p.TextDocument.URI] = doc{version: p.TextDocument.Version, text: p.TextDocument.Text}
			s.mu.Unlock()
			s.changed(p.TextDocument.URI, "didOpen")
		case "textDocument/didChange":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			_ = json.Unmarshal(m.Params, &p)
			for _, c := range p.ContentChanges {
				if strings.Contains(c.Text, "ERROR") && s.fault() {
					return
				}
			}
			s.mu.Lock()
			d := s.docs[p.TextDocument.URI]
			d.prev, d.version = d.text, p.TextDocument.Version
			if n := len(p.ContentChanges); n > 0 {
				d.text = p.ContentChanges[n-1].Text
			}
			s.docs[p.TextDocument.URI] = d
			s.mu.Unlock()
			s.changed(p.TextDocument.URI, "didChange")
		case "textDocument/didClose":
			var p struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			delete(s.docs, p.TextDocument.URI)
			s.mu.Unlock()
			s.changed(p.TextDocument.URI, "didClose")
		case "workspace/didChangeWatchedFiles":
			var p struct {
				Changes []struct {
					URI string `json:"uri"`
				} `json:"changes"`
			}
			_ = json.Unmarshal(m.Params, &p)
			s.mu.Lock()
			for _, c := range p.Changes {
				if data, err := os.ReadFile(strings.TrimPrefix(c.URI, "file://")); err == nil {
					s.disk[c.URI] = string(data)
				} else {
					delete(s.disk, c.URI)
				}
			}
			s.mu.Unlock()
			if s.has("progress") {
				s.progressEnd(s.progressBegin("diagnosing changed files"))
			}
		case "textDocument/diagnostic":
			var p struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if s.has("never-publish") {
				continue // no answer, ever
			}
			id, uri := m.ID, p.TextDocument.URI
			go func() {
				time.Sleep(s.delay(uri))
				if d, _ := time.ParseDuration(s.flags["slow"]); d > 0 {
					// One answer at a time, each taking d: a busy server
					// working through a long check.
					s.busy.Lock()
					defer s.busy.Unlock()
					time.Sleep(d)
				}
				s.reply(id, map[string]any{"kind": "full", "items": s.diagnostics(uri, false)})
			}()
		default:
			if len(m.ID) > 0 {
				s.reply(m.ID, nil)
			}
		}
	}
}

// fault applies crash-on-change or hang-on-change; it reports whether the
// server is to stop serving.
func (s *server) fault() bool {
	switch {
	case s.has("crash-on-change"):
		os.Exit(3)
	case s.has("hang-on-change"):
		for {
			time.Sleep(time.Hour) // never reads again, never answers
		}
	}
	return false
}

// changed publishes (push) or brackets in progress the work a change causes.
func (s *server) changed(uri, why string) {
	if s.has("pull") && !s.has("progress") {
		return
	}
	s.mu.Lock()
	d, open := s.docs[uri]
	s.mu.Unlock()
	publish := func() {
		if s.has("never-publish") {
			return
		}
		params := map[string]any{"uri": uri, "diagnostics": s.diagnostics(uri, s.has("stale"))}
		if open && !s.has("noversion") {
			v := d.version
			if s.has("stale") && v > 1 {
				v--
			}
			params["version"] = v
		}
		if !open {
			params["diagnostics"] = []any{}
		}
		s.notify("textDocument/publishDiagnostics", params)
	}
	go func() {
		time.Sleep(s.delay(uri))
		if s.has("progress") {
			tok := s.progressBegin("diagnosing " + why)
			publish()
			s.progressEnd(tok)
			return
		}
		publish()
	}()
}

// readDisk reads every file under the workspace, as a server's initial
// load does.
func (s *server) readDisk() {
	_ = filepath.WalkDir(s.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil {
			s.mu.Lock()
			s.disk["file://"+p] = string(data)
			s.mu.Unlock()
		}
		return nil
	})
}

// provided reports whether a file the server knows (open, else as read
// from disk) has the line "provides name".
func (s *server) provided(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	texts := map[string]string{}
	for uri, text := range s.disk {
		texts[uri] = text
	}
	for uri, d := range s.docs {
		texts[uri] = d.text
	}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			if strings.TrimSpace(line) == "provides "+name {
				return true
			}
		}
	}
	return false
}

func (s *server) diagnostics(uri string, stale bool) []map[string]any {
	s.mu.Lock()
	d, open := s.docs[uri]
	if !open && s.has("disk") {
		d.text = s.disk[uri] // a closed file, as the server last read it
	}
	s.mu.Unlock()
	text := d.text
	if stale {
		text = d.prev
	}
	out := []map[string]any{}
	for i, line := range strings.Split(text, "\n") {
		name, uses := strings.CutPrefix(strings.TrimSpace(line), "uses ")
		if strings.Contains(line, "ERROR") || (uses && s.has("disk") && !s.provided(name)) {
			out = append(out, map[string]any{
				"range":    map[string]any{"start": map[string]int{"line": i, "character": 0}, "end": map[string]int{"line": i, "character": len(line)}},
				"severity": 1, "code": "fake", "source": "lspfake", "message": "ERROR found",
			})
		}
	}
	return out
}

func (s *server) progressBegin(title string) string {
	s.mu.Lock()
	s.token++
	tok := "t" + strconv.Itoa(s.token)
	s.mu.Unlock()
	s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "begin", "title": title}})
	return tok
}

func (s *server) progressEnd(tok string) {
	s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "end"}})
}

func (s *server) reply(id json.RawMessage, result any) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *server) notify(method string, params any) {
	s.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (s *server) write(v any) {
	data, _ := json.Marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(data))
	s.out.Write(data)
	s.out.Flush()
}

func read(in *bufio.Reader) (message, error) {
	var m message
	n := -1
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return m, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if n < 0 {
		return m, fmt.Errorf("no Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(in, body); err != nil {
		return m, err
	}
	return m, json.Unmarshal(body, &m)
}
