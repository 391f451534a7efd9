package diagformat

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzz reads arbitrary output in format f: never a panic, and an answer
// only with a status the format allows.
func fuzz(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		data, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, 1)
		f.Add(data, 0)
	}
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, out []byte, exit int) {
		r, err := Parse(format, Input{Root: "/ws", Exit: exit, Output: out})
		if err == nil && exit != 0 && r.Incomplete == "" && !anyError(r.Files) {
			t.Fatalf("exit %d with no error read was taken as an answer", exit)
		}
	})
}

func FuzzGCC(f *testing.F)   { fuzz(f, GCC, "gcc-errors.txt") }
func FuzzRustc(f *testing.F) { fuzz(f, RustcJSON, "cargo-workspace.txt", "cargo-manifest.txt") }
func FuzzSARIF(f *testing.F) { fuzz(f, SARIF, "sarif-minimal.json") }
func FuzzJavac(f *testing.F) { fuzz(f, Javac, "javac-errors.txt") }
func FuzzTSC(f *testing.F)   { fuzz(f, TSC, "gcc-errors.txt") }
func FuzzMypy(f *testing.F)  { fuzz(f, Mypy, "mypy-errors.txt", "mypy-syntax.txt") }
func FuzzGoVet(f *testing.F) { fuzz(f, GoVet, "govet-findings.txt") }
