package gatefuzz_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/gatefuzz"
)

func TestGateFuzzCampaign(t *testing.T) {
	if *campaignTrials == 0 {
		t.Skip("a campaign runs from scripts/fuzz-gate.sh (-fuzz.trials)")
	}
	for name, l := range languages(t) {
		if *campaignLang != "" && *campaignLang != name {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Hour)
			defer cancel()
			rep, err := gatefuzz.Run(ctx, gatefuzz.Config{Lang: l, Trials: *campaignTrials, Seed: *campaignSeed, Dir: t.TempDir(), Open: inProcess(t), Log: os.Stdout})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(rep.Line())
		})
	}
}
