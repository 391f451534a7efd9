package envlist

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		env        []string
		name, want string
	}{
		{[]string{"A=1"}, "A", "1"},
		{[]string{"A=1", "A=2"}, "A", "2"},
		{[]string{"AB=1"}, "A", ""},
		{[]string{"A=x=y"}, "A", "x=y"},
		{[]string{"A="}, "A", ""},
		{nil, "A", ""},
	} {
		if got := Value(tc.env, tc.name); got != tc.want {
			t.Errorf("Value(%q, %q) = %q, want %q", tc.env, tc.name, got, tc.want)
		}
	}
}

// A name set is the value the program reads, however many entries of it
// the environment held: the program is the oracle.
func TestWithIsWhatTheProgramReads(t *testing.T) {
	for _, env := range [][]string{
		{"T=host"},
		{"T=host", "T=again"},
		{"T=host", "U=1", "T=again"},
		{"TT=other"},
		nil,
	} {
		got := With(slices.Clone(env), "T=set", "V=new")
		cmd := exec.Command("sh", "-c", `printf '%s %s' "$T" "$V"`)
		cmd.Env = got
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != "set new" || Value(got, "T") != "set" {
			t.Errorf("With(%q): the program read %q, Value %q", env, out, Value(got, "T"))
		}
		for _, kv := range env {
			if !strings.HasPrefix(kv, "T=") && !slices.Contains(got, kv) {
				t.Errorf("With(%q) lost %q", env, kv)
			}
		}
	}
}
