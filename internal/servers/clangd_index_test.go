package servers

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// A workspace's .clangd may name a remote index server, to which clangd
// would send the symbols a query asks about. clangd takes a remote index
// only from the user's own configuration ("Remote index may not be
// specified by untrusted configuration"): Anvil's clangd, asked where a
// symbol is defined, connects to no server the workspace names. The
// same server named in the user's configuration is connected to, which
// shows the probe sees a connection where there is one.
func TestClangdTakesNoRemoteIndexFromTheWorkspace(t *testing.T) {
	for _, tc := range []struct {
		name        string
		fromUser    bool
		connections bool
	}{
		{"named by the workspace's .clangd", false, false},
		{"named by the user's configuration", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := remoteIndexConnections(t, tc.fromUser); (got > 0) != tc.connections {
				t.Fatalf("%d connections to the remote index server, want any: %v", got, tc.connections)
			}
		})
	}
}

// remoteIndexConnections asks clangd where a function declared in a
// header is defined, with a remote index server named by the workspace
// (or by the user's configuration), and returns how many connections
// that server saw.
func remoteIndexConnections(t *testing.T, fromUser bool) int64 {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	dir := testfs.Tree(t, map[string]string{
		"a.h": "int f(void);\n",
		"a.c": "#include \"a.h\"\nint g(void) { return f(); }\n",
	})
	config := fmt.Sprintf("Index:\n  External:\n    Server: %s\n    MountPoint: %s\n", ln.Addr(), dir)
	if fromUser {
		user := t.TempDir()
		testfs.Write(t, user, map[string]string{"clangd/config.yaml": config})
		t.Setenv("XDG_CONFIG_HOME", user)
	} else {
		testfs.Write(t, dir, map[string]string{".clangd": config})
	}
	testfs.Write(t, dir, map[string]string{"compile_commands.json": `[{"directory": "` + dir + `", "file": "a.c", "arguments": ["cc", "-c", "a.c"]}]`})
	srv, err := realManager(t, dir).ForLanguage("c")
	if err != nil {
		t.Fatalf("clangd: %v (apt-get install clangd)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := filepath.Join(dir, "a.c")
	err = srv.Query(ctx, []Doc{{Path: a}}, func(n Navigator) error {
		_, err := n.Definition(ctx, lsp.URIFromPath(a), lsp.Position{Line: 1, Character: 21})
		return err
	})
	if err != nil {
		t.Fatalf("definition of f: %v", err)
	}
	// gRPC connects on the first request, and retries: a connection
	// would have come by now.
	time.Sleep(2 * time.Second)
	return accepted.Load()
}
