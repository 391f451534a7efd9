package shadow

import (
	"os"

	"github.com/anvil-dev/anvil/internal/corpus"
)

// testCorpus is the corpus cache of the environment the tests run in (a
// test binary is its own composition root).
func testCorpus() corpus.Cache { return corpus.FromEnviron(os.Environ()) }
