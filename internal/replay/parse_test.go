package replay

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDiffTree(t *testing.T) {
	z := "0000000000000000000000000000000000000000"
	a := "1111111111111111111111111111111111111111"
	b := "2222222222222222222222222222222222222222"
	tests := []struct {
		name, out, prefix string
		want              []fileChange
		bad               bool
	}{
		{name: "none", out: ""},
		{name: "modified, added, deleted",
			out:  ":100644 100644 " + a + " " + b + " M\x00src/a.ts\x00:000000 100755 " + z + " " + b + " A\x00bin/run\x00:100644 000000 " + a + " " + z + " D\x00old.py\x00",
			want: []fileChange{{path: "src/a.ts", blob: b, mode: "100644"}, {path: "bin/run", blob: b, mode: "100755"}, {path: "old.py", mode: "100644"}}},
		{name: "a path with spaces and a newline", out: ":100644 100644 " + a + " " + b + " M\x00a b\nc.ts\x00",
			want: []fileChange{{path: "a b\nc.ts", blob: b, mode: "100644"}}},
		{name: "under the workspace's prefix", prefix: "web/", out: ":100644 100644 " + a + " " + b + " M\x00web/src/a.ts\x00",
			want: []fileChange{{path: "src/a.ts", blob: b, mode: "100644"}}},
		{name: "an entry without its path", out: ":100644 100644 " + a + " " + b + " M\x00", bad: true},
		{name: "not an entry", out: "fatal: bad object\x00x\x00", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDiffTree([]byte(tt.out), tt.prefix)
			if (err != nil) != tt.bad {
				t.Fatalf("err = %v, want an error: %v", err, tt.bad)
			}
			if !tt.bad && !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseLog(t *testing.T) {
	out := "c2\x1fc1\x1fsecond: with \x1f in it\x00\nc1\x1f\x1froot\x00\nm\x1fc2 x\x1fMerge\x00"
	got, err := parseLog([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []commit{{hash: "c2", parents: []string{"c1"}, subject: "second: with \x1f in it"}, {hash: "c1", parents: []string{}, subject: "root"}, {hash: "m", parents: []string{"c2", "x"}, subject: "Merge"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if _, err := parseLog([]byte("no separators\x00")); err == nil {
		t.Fatal("a record without fields was read")
	}
}

// The readers of git's output never panic, and what they read names
// every path it was given.
func FuzzParseDiffTree(f *testing.F) {
	f.Add([]byte(":100644 100644 a b M\x00x.ts\x00"), "")
	f.Add([]byte(":100644 000000 a 0 D\x00p/y.py\x00"), "p/")
	f.Fuzz(func(t *testing.T, out []byte, prefix string) {
		list, err := parseDiffTree(out, prefix)
		if err != nil {
			return
		}
		if n := strings.Count(string(out), "\x00"); len(list) > n {
			t.Fatalf("%d entries from %d fields", len(list), n)
		}
	})
}

func FuzzParseLog(f *testing.F) {
	f.Add([]byte("c2\x1fc1\x1fsubject\x00"))
	f.Fuzz(func(t *testing.T, out []byte) {
		list, err := parseLog(out)
		if err != nil {
			return
		}
		for _, c := range list {
			if c.hash == "" {
				t.Fatalf("a commit without a hash from %q", out)
			}
		}
	})
}

func TestTotals(t *testing.T) {
	c := func(gate, checker Verdict, gateMS, checkerMS int64) Case {
		return Case{Gate: gate, Checker: checker, GateMS: gateMS, CheckerMS: checkerMS}
	}
	r := &Report{Cases: []Case{
		c(Clean, Clean, 10, 100),
		c(Rejected, Rejected, 20, 200),
		c(Clean, Rejected, 30, 300),
		c(Rejected, Clean, 40, 400),
		c(Unverified, Clean, 50, 500),
		c(Clean, Unverified, 60, 600),
		c(Unverified, Unverified, 70, 700),
		c(Rejected, Rejected, 80, 800),
		c(Clean, Clean, 90, 900),
		c(Clean, Clean, 100, 1000),
	}}
	r.total()
	want := Totals{Cases: 10, Judged: 8, Agreement: 5, Breaking: 3, Caught: 2, FalseCleans: 1, FalseRejects: 1, Unverified: 2, CheckerUnverified: 2,
		GateP50MS: 50, GateP90MS: 90, CheckerP50MS: 500, CheckerP90MS: 900}
	if r.Totals != want {
		t.Fatalf("totals = %+v\nwant     %+v", r.Totals, want)
	}
}
