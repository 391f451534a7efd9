package ui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/anvil-dev/anvil/internal/agent"
	"github.com/anvil-dev/anvil/internal/plan"
)

// AutoApprover approves every plan (--yes).
type AutoApprover struct{}

// Approve says yes.
func (AutoApprover) Approve(context.Context, *plan.Plan, int) (agent.Decision, error) {
	return agent.Decision{Kind: agent.DecisionYes, Auto: true}, nil
}

// LineApprover asks on a line-oriented input (a terminal without the TUI,
// or a pipe): y, n, or r followed by the feedback on the next line.
type LineApprover struct {
	in  *bufio.Reader
	out io.Writer
}

// NewLineApprover reads answers from in and writes prompts to out.
func NewLineApprover(in io.Reader, out io.Writer) *LineApprover {
	return &LineApprover{in: bufio.NewReader(in), out: out}
}

// Approve asks until it gets an answer. End of input declines: without
// someone to say yes, nothing is written.
func (a *LineApprover) Approve(ctx context.Context, _ *plan.Plan, _ int) (agent.Decision, error) {
	for {
		fmt.Fprint(a.out, "Approve this plan? [y]es / [n]o / [r]evise: ")
		line, err := a.readLine(ctx)
		if err != nil {
			return agent.Decision{}, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return agent.Decision{Kind: agent.DecisionYes}, nil
		case "n", "no":
			return agent.Decision{Kind: agent.DecisionNo}, nil
		case "r", "revise":
			fmt.Fprint(a.out, "What should change? ")
			fb, err := a.readLine(ctx)
			if err != nil {
				return agent.Decision{}, err
			}
			if strings.TrimSpace(fb) == "" {
				fmt.Fprintln(a.out, "(no feedback given; asking again)")
				continue
			}
			return agent.Decision{Kind: agent.DecisionRevise, Feedback: strings.TrimSpace(fb)}, nil
		}
		fmt.Fprintln(a.out, "please answer y, n or r")
	}
}

// readLine reads one line, giving up when ctx ends.
func (a *LineApprover) readLine(ctx context.Context) (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := a.in.ReadString('\n')
		ch <- result{line, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil && (r.line == "" || !errors.Is(r.err, io.EOF)) {
			if errors.Is(r.err, io.EOF) {
				return "", agent.ErrDeclined
			}
			return "", r.err
		}
		return r.line, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
