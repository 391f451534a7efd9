package shadow

import (
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/testfs"
)

func TestProgramFlag(t *testing.T) {
	for _, tt := range []struct {
		args string
		want string
	}{
		{"-c main.c -Iinclude -DX=1 -O2", ""},
		{"@flags.rsp -c main.c", "@flags.rsp"},
		{"-fplugin=./evil.so -c main.c", "-fplugin=./evil.so"},
		{"-B ./tools -c main.c", "-B"},
		{"-B./tools -c main.c", "-B./tools"},
		{"-wrapper ./w -c main.c", "-wrapper"},
		{"-specs=x.specs -c main.c", "-specs=x.specs"},
		{"-Xclang -load -Xclang ./p.so -c main.c", "-Xclang -load"},
		{"-Xclang -ast-dump -c main.c", ""},
		{"--gcc-toolchain=./tc -c main.c", "--gcc-toolchain=./tc"},
	} {
		if got := programFlag(strings.Fields(tt.args)); got != tt.want {
			t.Errorf("programFlag(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// In a workspace the user does not trust, only a compiler outside it
// compiles, without the flags that make it run another program; trusted,
// the compile database is the project's own and counts.
func TestCompilerAllowed(t *testing.T) {
	root := testfs.Tree(t, map[string]string{"tools/cc": "#!/bin/sh\n", "main.c": ""})
	for _, tt := range []struct {
		args    string
		trusted bool
		ok      bool
	}{
		{"cc -c main.c", false, true},
		{"/usr/bin/gcc -c main.c", false, true},
		{"./tools/cc -c main.c", false, false},
		{"gcc @flags.rsp -c main.c", false, false},
		{"gcc -fplugin=./p.so -c main.c", false, false},
		{"./tools/cc -c main.c", true, true},
		{"gcc @flags.rsp -c main.c", true, true},
	} {
		v := &Validator{opts: Options{Policy: execpolicy.New(execpolicy.Options{Root: root, Trusted: tt.trusted, Environ: []string{"PATH=/usr/bin:/bin"}})}}
		err := v.compilerAllowed(compiledb.Command{Dir: root, File: root + "/main.c", Args: strings.Fields(tt.args)})
		if (err == nil) != tt.ok {
			t.Errorf("%s (trusted=%v): %v, want ok=%v", tt.args, tt.trusted, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "anvil trust") {
			t.Errorf("%s: the refusal does not say how to trust: %v", tt.args, err)
		}
	}
}
