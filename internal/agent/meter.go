package agent

import (
	"sync"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/llm"
)

// Meter adds up token use and cost across the agents of a run.
type Meter struct {
	model string
	mu    sync.Mutex
	total llm.Usage
}

// NewMeter returns a meter pricing calls at model's list price.
func NewMeter(model string) *Meter { return &Meter{model: model} }

// Add records one call and emits the running total.
func (m *Meter) Add(agent string, u llm.Usage, events event.Sink) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.total = m.total.Add(u)
	total := m.total
	m.mu.Unlock()
	price, known := llm.PriceOf(m.model)
	events.Emit(event.Usage{Agent: agent, Turn: u, Total: total, Cost: price.Cost(total), CostKnown: known})
}
