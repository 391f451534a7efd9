package gatefuzz_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/gatefuzz"
)

func TestGateFuzzCampaign(t *testing.T) {
	if *campaignTrials == 0 {
		t.Skip("a campaign runs from scripts/fuzz-gate.sh (-fuzz.trials)")
	}
	open, ok := paths(t)[*campaignPath]
	if !ok {
		t.Fatalf("no front end %q", *campaignPath)
	}
	front := *campaignPath
	var seen answerers
	if *campaignPin != "" {
		if *campaignLang != "ts" || front != "hooks" {
			t.Fatal("-fuzz.pin is for TypeScript through the hooks (-fuzz.lang ts -fuzz.path hooks)")
		}
		open, front = throughPinnedHooks(t, &seen), "hooks, pinned "+*campaignPin
	}
	for name, l := range languages(t) {
		if *campaignLang != "" && *campaignLang != name {
			continue
		}
		if ts, ok := l.(gatefuzz.TS); ok && *campaignPin != "" {
			ts.Pin = *campaignPin
			l = ts
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Hour)
			defer cancel()
			rep, err := gatefuzz.Run(ctx, gatefuzz.Config{Lang: l, Trials: *campaignTrials, Seed: *campaignSeed, First: *campaignFirst, Dir: t.TempDir(), Open: open, Path: *campaignPath, Known: gatefuzz.KnownOpen(), Cases: casesDir(), Log: os.Stdout})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("%d of %d edits break something by the checker\n", rep.Breaking(), len(rep.Outcomes))
			fmt.Print(describeCauses(rep))
			if line := rep.CompilerLine(); line != "" {
				fmt.Println(line)
			}
			if *campaignPin != "" {
				fmt.Printf("answered by: %s\n", &seen)
			}
			fmt.Println(rep.Line())
			if *campaignOut != "" {
				if err := appendRow(*campaignOut, rep, front); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func casesDir() string {
	if *campaignCases != "" {
		return *campaignCases
	}
	return filepath.Join("testdata", "cases")
}

// appendRow appends the campaign's counts as a row of docs/corpus.md's
// table: date, language (and the front end asked), seed, trials, false cleans, false rejects,
// unverified, and why (which counts the compiler disagreements, when a
// second compiler ran: a clause, not a column, so that the rows written
// before stay as they are).
func appendRow(path string, rep *gatefuzz.Report, front string) error {
	why := []string{fmt.Sprintf("%d break something by the checker", rep.Breaking())}
	if rep.Versus != "" {
		why = append(why, compilerClause(rep))
	}
	for _, c := range []gatefuzz.Class{gatefuzz.FalseClean, gatefuzz.FalseReject, gatefuzz.Unverified} {
		causes := rep.Causes(c)
		for _, k := range slices.Sorted(maps.Keys(causes)) {
			cause := strings.TrimSpace(k)
			if cause == "" {
				cause = "not known open (see the campaign's log)"
			}
			why = append(why, fmt.Sprintf("%s %d× %s", c, causes[k], cause))
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "| %s | %s | %d | %d | %d | %d | %d | %s |\n", time.Now().UTC().Format("2006-01-02"), rep.Lang+" ("+front+")", rep.Seed,
		len(rep.Outcomes), rep.Count(gatefuzz.FalseClean), rep.Count(gatefuzz.FalseReject), rep.Count(gatefuzz.Unverified),
		strings.ReplaceAll(strings.Join(why, "; "), "|", "/"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// compilerClause is the row's count of compiler disagreements, with their
// causes: "TypeScript 6 vs 7: 2 compiler disagreements (2× after the edit, …)".
func compilerClause(rep *gatefuzz.Report) string {
	s := fmt.Sprintf("%s: %d compiler disagreements", rep.Versus, rep.CompilerDisagreements())
	causes := rep.CompilerCauses()
	var each []string
	for _, k := range slices.Sorted(maps.Keys(causes)) {
		each = append(each, fmt.Sprintf("%d× %s", causes[k], k))
	}
	if len(each) > 0 {
		s += " (" + strings.Join(each, ", ") + ")"
	}
	return s
}
