package reach

import (
	"sync"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/tsdecl"
)

// The declaration emit only narrows: where it is complete on both sides,
// it names the exports whose interface changed in place of the file's
// shape (Graph.declarationChanges); where it is not asked, the shape
// decides, as for every other language. So not asking is always sound,
// and costs at most a wider set of dependants, while asking costs
// TypeScript's whole emit of the file, on either side: 0.8–1.4 s for
// zod's types.ts (160 KB), measured on the project machine under load,
// for an emit that is incomplete anyway (160 exports whose type needs
// inference), on every edit of it.

// maxEmitBytes bounds the files the emit is asked about: above it, the
// emit costs more than a check of the extra dependants it could spare
// (about 5 ms per KB, measured as above).
const maxEmitBytes = 64 << 10

// farFromComplete is the number of diagnostics from which a file's emit
// is taken to stay incomplete after one more edit: each is an export
// whose type needs inference, which an edit rarely adds to them all.
const farFromComplete = 3

// retryAfter is how many comparisons of a file far from complete pass
// without its emit before it is asked again (an edit may have given its
// exports their types). A check may compare a file more than once (a
// warm-up, the hooks' narrowed check), so this counts comparisons.
const retryAfter = 10

// emitOdds remembers the files whose last emit was far from complete;
// their dependants are the shape's, as without TypeScript, until the
// file is asked about again.
type emitOdds struct {
	mu  sync.Mutex
	far map[string]int // by relative path: the comparisons left to pass
}

// worthAsking reports whether the emit may narrow c: both sides within
// the size bound, and the file's last emit not far from complete.
func (o *emitOdds) worthAsking(c *changeset.Change) bool {
	if len(c.Base) > maxEmitBytes || len(c.Content) > maxEmitBytes {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.far[c.Path] > 0 {
		o.far[c.Path]--
		return false
	}
	return true
}

// learn keeps what the emit of the file at rel said.
func (o *emitOdds) learn(rel string, r tsdecl.Result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if r.Diagnostics >= farFromComplete {
		if o.far == nil {
			o.far = map[string]int{}
		}
		o.far[rel] = retryAfter
	} else {
		delete(o.far, rel)
	}
}
