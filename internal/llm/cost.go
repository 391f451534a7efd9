package llm

import "strings"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// PriceOf returns the list price of a model by its family (Anthropic's
// published prices for Haiku, Sonnet and Opus), and whether it is known.
// Local and unknown models have no price: cost is shown as unknown rather
// than guessed.
func PriceOf(model string) (Price, bool) {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "haiku"):
		return Price{Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25}, true
	case strings.Contains(m, "sonnet"):
		return Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}, true
	case strings.Contains(m, "opus"):
		return Price{Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25}, true
	}
	return Price{}, false
}

// Cost returns the dollar cost of u at price p.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}
