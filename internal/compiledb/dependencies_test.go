package compiledb

import (
	"slices"
	"testing"
)

// Dependencies keeps the command's flags and drops what writes a file.
func TestDependenciesCommand(t *testing.T) {
	c := Command{Dir: "/w", File: "/w/a.c", Args: []string{"cc", "-Iinc", "-MD", "-MF", "a.d", "-c", "a.c", "-o", "a.o"}}
	got := c.Dependencies("/tmp/x.d")
	want := []string{"cc", "-Iinc", "a.c", "-M", "-MG", "-MF", "/tmp/x.d", "-w", "-fdiagnostics-color=never"}
	if !slices.Equal(got, want) {
		t.Fatalf("Dependencies = %q, want %q", got, want)
	}
}
