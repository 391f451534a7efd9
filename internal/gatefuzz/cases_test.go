package gatefuzz

import (
	"bytes"
	"reflect"
	"testing"
)

// Every language's trials are deterministic in their seed and index, and
// survive a round trip through a regression case.
func TestTrialsAreSeededAndRoundTrip(t *testing.T) {
	for _, l := range []Language{TS{}, Python{}, Go{}} {
		for i := range 50 {
			a, b := Generate(l, 7, i), Generate(l, 7, i)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s trial %d: two generations differ", l.Name(), i)
			}
			if len(a.Edit) == 0 {
				t.Fatalf("%s trial %d: an empty edit", l.Name(), i)
			}
			c := &Case{Trial: a, Class: FalseClean, Gate: "clean", Truth: []string{"a.ts: TS1: x"}, Open: "why", Path: "hooks", Pin: "5.9.3"}
			got, err := ParseCase(c.Format())
			if err != nil {
				t.Fatalf("%s trial %d: %v", l.Name(), i, err)
			}
			got.Trial.Name = a.Name
			if !reflect.DeepEqual(got, c) {
				t.Fatalf("%s trial %d: the case reads back as\n%+v\nnot\n%+v", l.Name(), i, got.Trial, c.Trial)
			}
		}
	}
}

// ParseCase reads any input without panicking, and what it accepts
// formats back to something it reads the same.
func FuzzParseCase(f *testing.F) {
	f.Add(Generate(TS{}, 1, 0).caseBytes())
	f.Add(Generate(Python{}, 1, 1).caseBytes())
	f.Add([]byte("lang: ts\n-- edit/../x --\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCase(data)
		if err != nil {
			return
		}
		again, err := ParseCase(c.Format())
		if err != nil {
			t.Fatalf("a case formatted from an accepted one does not read: %v", err)
		}
		if !bytes.Equal(again.Format(), c.Format()) {
			t.Fatalf("the case changes on a second round trip")
		}
	})
}

func (t *Trial) caseBytes() []byte { return (&Case{Trial: t, Class: Agree}).Format() }
