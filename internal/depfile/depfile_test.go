package depfile

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in string
		want     []Rule
		err      bool
	}{
		{"cargo's dep-info", "/t/debug/deps/shapes-1.d: src/lib.rs src/sides.in\n\nsrc/lib.rs:\nsrc/sides.in:\n\n# env-dep:CARGO_PKG_NAME=shapes\n",
			[]Rule{{Targets: []string{"/t/debug/deps/shapes-1.d"}, Prereqs: []string{"src/lib.rs", "src/sides.in"}}, {Targets: []string{"src/lib.rs"}}, {Targets: []string{"src/sides.in"}}}, false},
		{"gcc -MD with continuations", "main.o: main.c color.h \\\n  colors.def \\\n /usr/include/stdio.h\n",
			[]Rule{{Targets: []string{"main.o"}, Prereqs: []string{"main.c", "color.h", "colors.def", "/usr/include/stdio.h"}}}, false},
		{"escaped spaces, hashes and dollars", "a\\ b.o: my\\ file.c x\\#y.h cost$$.h\n",
			[]Rule{{Targets: []string{"a b.o"}, Prereqs: []string{"my file.c", "x#y.h", "cost$.h"}}}, false},
		{"a drive letter is no rule's colon", "C:\\out\\a.o: C:\\src\\a.c\n",
			[]Rule{{Targets: []string{"C:\\out\\a.o"}, Prereqs: []string{"C:\\src\\a.c"}}}, false},
		{"CRLF", "a.o: a.c\r\n", []Rule{{Targets: []string{"a.o"}, Prereqs: []string{"a.c"}}}, false},
		{"not a dependency file", "hello world\n", nil, true},
		{"a rule with no target", ": a.c\n", nil, true},
		{"empty", "", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse([]byte(c.in))
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if !slices.EqualFunc(got, c.want, func(a, b Rule) bool {
				return slices.Equal(a.Targets, b.Targets) && slices.Equal(a.Prereqs, b.Prereqs)
			}) {
				t.Fatalf("rules = %q\nwant %q", got, c.want)
			}
		})
	}
}

// FuzzParse holds the reader to what it promises on any input: no panic,
// and a file refused whole or read into rules that each have a target;
// and for names written as a compiler writes them, the same names back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a.o: a.c b.h\n", "x\\ y: z\\#w $$\n", "a: \\\n b\n", "# c\n", "C:\\a: C:\\b\n", "::\n", "a\\"} {
		f.Add(s, "p q")
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		rules, err := Parse([]byte(text))
		if err == nil {
			for _, r := range rules {
				if len(r.Targets) == 0 {
					t.Fatalf("a rule without a target from %q", text)
				}
			}
		}
		if name == "" || strings.ContainsAny(name, "\n\r\\:") || strings.TrimSpace(name) != name || strings.HasPrefix(name, "#") {
			return
		}
		dep := "out.o: " + Escape(name) + " other.h\n"
		rules, err = Parse([]byte(dep))
		if err != nil || len(rules) != 1 || !slices.Equal(rules[0].Prereqs, []string{name, "other.h"}) {
			t.Fatalf("%q read back as %q (%v)", name, rules, err)
		}
	})
}
