package gatefuzz

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/execpolicy"
)

// The Rust campaign's truth in one cargo run (--keep-going over the
// whole workspace) is the truth of a run per project, on generated
// projects whose edits break some of them; and the version that decides
// between the two agrees with cargo itself, which refuses --keep-going
// before 1.74.
func TestRustTruthInOneRunIsARunPerProject(t *testing.T) {
	l := Rust{Env: execpolicy.New(execpolicy.Options{Environ: os.Environ()}).Env()}
	ctx := context.Background()
	dir := t.TempDir()
	var trials []*Trial
	var names []string
	for i := range 12 {
		tr := Generate(l, 7, i)
		trials = append(trials, tr)
		names = append(names, tr.Name)
	}
	if err := layOut(dir, l.Shared(names), trials, true, false); err != nil {
		t.Fatal(err)
	}
	keeps := cargoKeepsGoing(ctx, l.env(dir), dir)
	exit, out, err := run(ctx, l.env(dir), dir, "cargo", "check", "--workspace", "--keep-going", "--offline", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	refused := strings.Contains(string(out), "--keep-going") && !strings.Contains(string(out), "could not compile")
	if keeps == refused {
		t.Fatalf("cargoKeepsGoing says %v, and cargo (exit %d) said:\n%s", keeps, exit, out)
	}
	if !keeps {
		// This cargo cannot check in one run: Errors checks each
		// project apart, the only way it has.
		return
	}
	apart, err := l.errors(ctx, dir, names, false)
	if err != nil {
		t.Fatal(err)
	}
	one, err := l.errors(ctx, dir, names, true)
	if err != nil {
		t.Fatal(err)
	}
	broken := 0
	for _, n := range names {
		if len(apart[n]) > 0 {
			broken++
		}
	}
	if broken == 0 || broken == len(names) {
		t.Fatalf("%d of %d projects broken: the seed no longer tests a run that goes on past a failure", broken, len(names))
	}
	if !reflect.DeepEqual(apart, one) {
		t.Errorf("one run differs from a run per project:\n%s", diffTruths(apart, one))
	}
}

func diffTruths(a, b map[string][]string) string {
	var s strings.Builder
	for n := range a {
		if !reflect.DeepEqual(a[n], b[n]) {
			fmt.Fprintf(&s, "%s: apart %v, one run %v\n", n, a[n], b[n])
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			fmt.Fprintf(&s, "%s: apart none, one run %v\n", n, b[n])
		}
	}
	return s.String()
}
