package gatefuzz

import (
	"context"
	"fmt"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/service"
)

// ServiceGate asks a [service.Service] to check an edit, as `anvil check`
// does: the service in this process (`--no-daemon`) or the daemon's.
type ServiceGate struct {
	Service service.Service
	// Stop releases what serves it.
	Stop func()
}

// Judge implements [Gate].
func (g *ServiceGate) Judge(ctx context.Context, edit Edit) (Judgement, error) {
	var specs []changeset.Spec
	for _, p := range edit.Paths() {
		if c := edit[p]; c == nil {
			specs = append(specs, changeset.Spec{Path: p, Delete: true})
		} else {
			specs = append(specs, changeset.Spec{Path: p, Content: c})
		}
	}
	out, err := g.Service.Check(ctx, specs, service.GateOptions{})
	if err != nil {
		return Judgement{}, err
	}
	if len(out.Stale) > 0 || out.Result == nil {
		return Judgement{Verdict: "unverified", Why: fmt.Sprintf("no result (stale: %v)", out.Stale)}, nil
	}
	res := out.Result
	j := Judgement{Verdict: string(res.Verdict)}
	for _, d := range res.New {
		j.New = append(j.New, fmt.Sprintf("%s: %s: %s", d.Path, d.Code, d.Message))
	}
	if len(res.Unverified) > 0 {
		var why []string
		for _, u := range res.Unverified {
			why = append(why, u.Reason)
		}
		j.Why = strings.Join(why, "\n")
	}
	return j, nil
}

// Close implements [Gate].
func (g *ServiceGate) Close() {
	if g.Stop != nil {
		g.Stop()
	}
}
