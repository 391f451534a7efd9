package batch

// NewErrors returns the errors of after that before does not have, as a
// multiset: an error added beside an identical one is new. Errors are
// compared as written ("file: code: message", no position), since a
// change moves lines. This is the batch checker's side of every
// agreement Anvil measures (the corpus, the fuzzer, replay): one rule, so
// that they all count a new error alike.
func NewErrors(before, after []string) []string {
	count := map[string]int{}
	for _, e := range before {
		count[e]++
	}
	var out []string
	for _, e := range after {
		if count[e] > 0 {
			count[e]--
			continue
		}
		out = append(out, e)
	}
	return out
}
