package app

import (
	"os"
	"path/filepath"
	"testing"
)

// The platform the gate reads vet's builds by is the one the
// environment given to the composition root names, not the process's.
func TestGoBuildContextIsTheEnvironments(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"x_windows.go", "x_linux.go", "x_arm64.go", "c.go"} {
		src := "package x\n"
		if f == "c.go" {
			src = "//go:build cgo\n\npackage x\n"
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		env   map[string]string
		file  string
		build bool
	}{
		{map[string]string{"GOOS": "windows"}, "x_windows.go", true},
		{map[string]string{"GOOS": "windows"}, "x_linux.go", false},
		{map[string]string{"GOOS": "linux", "GOARCH": "arm64"}, "x_arm64.go", true},
		{map[string]string{"GOOS": "linux", "GOARCH": "amd64"}, "x_arm64.go", false},
		{map[string]string{"CGO_ENABLED": "0"}, "c.go", false},
		{map[string]string{"CGO_ENABLED": "1"}, "c.go", true},
	} {
		c := goBuildContext(func(k string) string { return tc.env[k] })
		if got, err := c.MatchFile(dir, tc.file); err != nil || got != tc.build {
			t.Errorf("%v: %s built %v (%v), want %v", tc.env, tc.file, got, err, tc.build)
		}
	}
}
