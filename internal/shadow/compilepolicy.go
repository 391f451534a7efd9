package shadow

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/sandbox"
)

// A compile database names programs: its compiler, and through flags
// (gcc's -B and -wrapper, a plugin, a specs file, clang's -load, a
// response file holding any of them) programs the system's own compiler
// runs. In a workspace the user does not trust, only a compiler outside
// the workspace runs, and none of those flags.

// compilerAllowed says whether the policy lets unit's command run; the
// error says why not and how to trust the workspace.
func (v *Validator) compilerAllowed(u compiledb.Command) error {
	p := v.opts.Policy
	if p == nil {
		return fmt.Errorf("no execution policy to compile %s with", u.File)
	}
	if len(u.Args) == 0 {
		return fmt.Errorf("the compile database has no command for %s", u.File)
	}
	cc := u.Args[0]
	path := cc
	if strings.ContainsRune(cc, '/') {
		if !filepath.IsAbs(cc) {
			path = filepath.Join(u.Dir, cc)
		}
	} else if found, err := sandbox.LookPath(cc, p.SealedEnv()); err == nil {
		path = found
	}
	if err := p.Program(execpolicy.Origin{What: fmt.Sprintf("the compile database's compiler %s", cc), Path: path}); err != nil {
		return err
	}
	if flag := programFlag(u.Args[1:]); flag != "" {
		return p.Program(execpolicy.Origin{What: fmt.Sprintf("the compile database's %s for %s (it makes the compiler run another program)", flag, filepath.Base(u.File)), Project: true})
	}
	return nil
}

// programFlag returns the first argument that makes gcc or clang run or
// load a program the command names, "" when none does. A response file
// (@file) counts: what it holds is read by the compiler, not here.
func programFlag(args []string) string {
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "@"),
			strings.HasPrefix(a, "-B"), strings.HasPrefix(a, "--prefix"),
			a == "-wrapper", strings.HasPrefix(a, "-wrapper="),
			strings.HasPrefix(a, "-fplugin"), strings.HasPrefix(a, "-fpass-plugin"),
			strings.HasPrefix(a, "-specs"), strings.HasPrefix(a, "--specs"),
			strings.HasPrefix(a, "--gcc-toolchain"), strings.HasPrefix(a, "--config"),
			strings.HasPrefix(a, "-ccc-"), a == "-no-canonical-prefixes":
			return a
		case a == "-Xclang" && i+1 < len(args):
			switch n := args[i+1]; {
			case n == "-load", n == "-plugin", n == "-add-plugin", strings.HasPrefix(n, "-fplugin"), strings.HasPrefix(n, "-fpass-plugin"):
				return a + " " + n
			}
		}
	}
	return ""
}
