package hooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// checkService answers Check with verdict after delay, counting the
// checks and whether they were narrowed to the changed files.
type checkService struct {
	service.Service
	verdict     shadow.Verdict
	delay       time.Duration
	checks      int
	changedOnly bool
}

func (s *checkService) Check(ctx context.Context, _ []changeset.Spec, opts service.GateOptions) (*service.Outcome, error) {
	s.checks++
	s.changedOnly = s.changedOnly || opts.ChangedOnly
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return &service.Outcome{Result: &shadow.Result{Verdict: shadow.Unverified}}, nil
	}
	return &service.Outcome{Result: &shadow.Result{Verdict: s.verdict}}, nil
}

// A check that ends within its share of the bound keeps its verdict,
// unverified included: only a check the bound cut short is narrowed to
// the changed files, and only then is the bound named. (Found by the gate
// fuzzer's hooks path: an unverified verdict given at once was checked
// again and said to have run out of time.) A wait for the importers
// shorter than the bound's share cuts the whole check at the wait.
func TestCheckWithinNarrowsOnlyWhatTheBoundCut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verdict shadow.Verdict
		delay   time.Duration
		wait    time.Duration
		cut     string // what the note names, "" for no cut
	}{
		{"unverified at once", shadow.Unverified, 0, 0, ""},
		{"clean at once", shadow.Clean, 0, 0, ""},
		{"past the bound", shadow.Clean, time.Hour, 0, "within the hook's bound"},
		{"within the wait", shadow.Clean, 0, 100 * time.Millisecond, ""},
		{"past the wait, within the bound", shadow.Clean, 200 * time.Millisecond, 100 * time.Millisecond, "within the wait an edit is given for them (100ms)"},
		{"a wait longer than the bound's share", shadow.Clean, time.Hour, time.Hour, "within the hook's bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &checkService{verdict: tc.verdict, delay: tc.delay}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			out, cut, err := checkWithin(ctx, svc, nil, service.GateOptions{}, tc.wait, "the edit")
			if err != nil {
				t.Fatal(err)
			}
			if (cut != "") != (tc.cut != "") || svc.changedOnly != (tc.cut != "") {
				t.Fatalf("cut = %q, narrowed = %v after %d checks; want a cut %q", cut, svc.changedOnly, svc.checks, tc.cut)
			}
			if tc.cut == "" && out.Result.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s", out.Result.Verdict, tc.verdict)
			}
			if !strings.Contains(cut, tc.cut) {
				t.Errorf("cut = %q, want it to say %q", cut, tc.cut)
			}
		})
	}
}

// A check already of the changed files alone (an edit's default) has
// nothing narrower to fall back on: it has the whole bound, is never cut
// to try again (which would start the server again), and says nothing
// of importers it never meant to check.
func TestCheckWithinOfTheChangedFilesAloneHasTheWholeBound(t *testing.T) {
	svc := &checkService{verdict: shadow.Clean, delay: 300 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	out, cut, err := checkWithin(ctx, svc, nil, service.GateOptions{ChangedOnly: true}, 0, "the edit")
	if err != nil {
		t.Fatal(err)
	}
	if cut != "" || svc.checks != 1 {
		t.Fatalf("cut = %q after %d checks; want one check, uncut", cut, svc.checks)
	}
	if out.Result.Verdict != shadow.Clean {
		t.Errorf("verdict %s, want clean: the check had 400 ms, not 240", out.Result.Verdict)
	}
}

// What an edit's check asks of the gate: by default its own files
// alone; with an allowance, the importers that fit it; under --strict,
// every importer, since what is left unverified is refused.
func TestEditOptionsLeaveTheImportersByDefault(t *testing.T) {
	for _, tc := range []struct {
		name        string
		g           Gate
		changedOnly bool
		within      time.Duration
		wait        time.Duration
	}{
		{"default", Gate{}, true, 0, 0},
		{"an allowance", Gate{ImportersWithin: 2 * time.Second}, false, 2 * time.Second, 2 * time.Second},
		{"a small allowance", Gate{ImportersWithin: 100 * time.Millisecond}, false, 100 * time.Millisecond, minImportersWait},
		{"strict", Gate{Strict: true}, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.g.editOptions(true)
			if opts.ChangedOnly != tc.changedOnly || opts.DependantsWithin != tc.within || !opts.Staging || !opts.NewOnly {
				t.Errorf("editOptions = %+v; want changed only %v, dependants within %s", opts, tc.changedOnly, tc.within)
			}
			if w := tc.g.importersWait(); w != tc.wait {
				t.Errorf("importersWait = %s, want %s", w, tc.wait)
			}
		})
	}
}
