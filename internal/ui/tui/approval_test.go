package tui

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/agent"
)

func TestGate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input func(h *harness)
		want  agent.Decision
	}{
		{"y approves", func(h *harness) { h.keys("y") }, agent.Decision{Kind: agent.DecisionYes}},
		{"n declines", func(h *harness) { h.keys("n") }, agent.Decision{Kind: agent.DecisionNo}},
		{"r sends feedback", func(h *harness) {
			h.keys("r")
			h.typeText("call it Account, not Acct")
			h.keys("enter")
		}, agent.Decision{Kind: agent.DecisionRevise, Feedback: "call it Account, not Acct"}},
		{"esc goes back to the gate", func(h *harness) {
			h.keys("r")
			h.typeText("nothing") // 'n' here is text, not a decline
			h.keys("esc", "y")
		}, agent.Decision{Kind: agent.DecisionYes}},
		{"empty feedback is not sent", func(h *harness) {
			h.keys("r", "enter", "esc", "n")
		}, agent.Decision{Kind: agent.DecisionNo}},
		{"keys other than y n r do not answer", func(h *harness) {
			h.keys("x", "q", "enter", "y")
		}, agent.Decision{Kind: agent.DecisionYes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, Options{}, 100, 40)
			evs := recordedRun()[:10] // up to the plan
			h.emit(evs...)
			type result struct {
				d   agent.Decision
				err error
			}
			got := make(chan result, 1)
			go func() {
				d, err := h.approver().Approve(context.Background(), planOf(evs), 0)
				got <- result{d, err}
			}()
			h.waitAsked(t)
			tt.input(h)
			select {
			case r := <-got:
				if r.err != nil || r.d != tt.want {
					t.Fatalf("Approve = %+v, %v; want %+v", r.d, r.err, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no answer from the gate")
			}
			h.quit()
			if m := h.final(t); m.gate.Active() {
				t.Error("the gate is still open after the answer")
			}
		})
	}
}

func TestGateShowsQuestionAndFeedback(t *testing.T) {
	t.Parallel()
	m := newModel(Options{}, nil)
	m.Update(teaSize(100, 40))
	m.Update(askMsg{plan: demoPlan(), reply: make(chan agent.Decision, 1)})
	mustContain(t, screenText(m), "Goal: Rename the User type", "Approve this plan?", "y  approve", "n  decline", "r  revise")
	m.Update(keyPress("r"))
	mustContain(t, screenText(m), "What should change?", "Enter sends · Esc goes back")
	m.Update(keyPress("esc"))
	mustContain(t, screenText(m), "Approve this plan?")
}

func TestApproveEndsWithContext(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, 100, 40)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := h.approver().Approve(ctx, demoPlan(), 0)
		errc <- err
	}()
	h.waitAsked(t)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Approve = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Approve did not return when its context ended")
	}
	h.quit()
	if m := h.final(t); m.gate.Active() {
		t.Error("the gate stayed open for a request nobody waits for")
	}
}

func TestApproveDeclinesWhenUIIsGone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, 100, 40)
	close(h.gone)
	_, err := h.approver().Approve(context.Background(), demoPlan(), 0)
	if !errors.Is(err, agent.ErrDeclined) {
		t.Fatalf("Approve = %v, want agent.ErrDeclined", err)
	}
}
