package shadow

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// cargoBenchWorkspace is Debian's percent-encoding and form_urlencoded as
// the two members of one workspace, the second using the first.
func cargoBenchWorkspace(b *testing.B) string {
	ws := b.TempDir()
	debianCrate(b, "percent-encoding-2.2.0", filepath.Join(ws, "percent-encoding"))
	debianCrate(b, "form_urlencoded-1.1.0", filepath.Join(ws, "form_urlencoded"))
	manifest := filepath.Join(ws, "form_urlencoded", "Cargo.toml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(manifest, []byte(strings.Replace(string(data), "[dependencies.percent-encoding]\n", "[dependencies.percent-encoding]\npath = \"../percent-encoding\"\n", 1)), 0o644)
	testfs.Write(b, ws, map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"percent-encoding\", \"form_urlencoded\"]\nresolver = \"2\"\n"})
	return ws
}

// BenchmarkCargoCheck compares, after the same one-file edit of a real
// crate (percent-encoding, which form_urlencoded uses): the gate's cold
// check (no state of Anvil's: both trees built), its warm check (the
// unchanged tree's answer kept, cargo's state warm), and the user's own
// `cargo check` after the edit with a warm target directory.
func BenchmarkCargoCheck(b *testing.B) {
	if _, err := exec.LookPath("cargo"); err != nil {
		b.Fatal(err)
	}
	const file = "percent-encoding/src/lib.rs"
	edit := func(base string, i int) string {
		return base + fmt.Sprintf("\n/// Edit %d.\npub fn edit_%d() {}\n", i, i)
	}
	validator := func(b *testing.B, ws, state string) (*Validator, *workspace.Root) {
		root, err := workspace.New(ws)
		if err != nil {
			b.Fatal(err)
		}
		mgr := servers.NewManager(root.Dir(), servers.NewRegistry(servers.RegistryOptions{Policy: testPolicy(root.Dir())}), servers.ManagerOptions{})
		b.Cleanup(func() { mgr.Shutdown(context.Background()) })
		v := New(root, mgr, nil, Options{Policy: testPolicy(root.Dir()), BatchStateDir: state})
		b.Cleanup(v.Close)
		return v, root
	}
	check := func(b *testing.B, v *Validator, root *workspace.Root, content string) {
		set, err := changeset.Load(root, []changeset.Spec{{Path: file, Content: &content}})
		if err != nil {
			b.Fatal(err)
		}
		res, err := v.Validate(context.Background(), set, 1, Scope{}, nil)
		if err != nil || res.Verdict != Clean {
			b.Fatalf("%v %v", res, err)
		}
	}
	b.Run("anvil-cold", func(b *testing.B) {
		ws := cargoBenchWorkspace(b)
		base, _ := os.ReadFile(filepath.Join(ws, file))
		for i := 0; i < b.N; i++ {
			v, root := validator(b, ws, b.TempDir())
			check(b, v, root, edit(string(base), i))
		}
	})
	b.Run("anvil-warm", func(b *testing.B) {
		ws := cargoBenchWorkspace(b)
		base, _ := os.ReadFile(filepath.Join(ws, file))
		v, root := validator(b, ws, b.TempDir())
		check(b, v, root, edit(string(base), 1000))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			check(b, v, root, edit(string(base), i))
		}
	})
	b.Run("user-cargo-check", func(b *testing.B) {
		ws := cargoBenchWorkspace(b)
		base, _ := os.ReadFile(filepath.Join(ws, file))
		run := func() {
			cmd := exec.Command("cargo", "check", "--workspace", "--all-targets", "--message-format=json", "--quiet", "--offline")
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
		run()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			os.WriteFile(filepath.Join(ws, file), []byte(edit(string(base), i)), 0o644)
			b.StartTimer()
			run()
		}
	})
}
