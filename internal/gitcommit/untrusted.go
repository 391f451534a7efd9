package gitcommit

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/anvil-dev/anvil/internal/gitscope"
)

// In a workspace the user does not trust, nothing the repository's own
// configuration names runs: untrustedConfig turns off its hooks and its
// core.fsmonitor program, and the programs git would run for a commit
// that only a configuration key names — a clean filter's or filter
// process's command, a signing program — are looked up by where they are
// set: one the repository's own configuration sets (.git/config, a
// worktree's, what they include) refuses the commit, with the one command
// that trusts the workspace; the user's own (global, system) runs. A
// listing git cannot give (a git before 2.26 has no --show-scope) refuses
// too: not knowing who set a program is no leave to run it.

// repoEntries lists the settings whose keys match pattern, with their
// scopes; none is an empty list.
func (r *repo) repoEntries(ctx context.Context, pattern string) ([]gitscope.Entry, error) {
	out, err := r.git(ctx, r.top, nil, gitscope.Args(pattern)...)
	entries, err := gitscope.Read([]byte(out), err)
	if err != nil {
		return nil, fmt.Errorf("git could not say where its configuration sets %s: %s", pattern, gitMessage(err))
	}
	return entries, nil
}

// repoFilter returns a filter driver whose program the repository's own
// configuration names (filter.NAME.clean, .smudge or .process), "" for
// none: git runs it for any file whose attributes name it, in more
// commands than git add (a refresh of the index, a dry run of add), so
// its presence alone refuses an untrusted commit.
func (r *repo) repoFilter(ctx context.Context) (string, error) {
	entries, err := r.repoEntries(ctx, gitscope.FilterPattern)
	if err != nil {
		return "", err
	}
	return gitscope.FilterDriver(entries), nil
}

// signerKeys are the keys that name a program git runs to sign.
var signerKeys = []string{"gpg.program", "gpg.openpgp.program", "gpg.x509.program", "gpg.ssh.program", "gpg.ssh.defaultKeyCommand"}

// repoSigner returns the signing program key the repository's own
// configuration sets, "" for none.
func (r *repo) repoSigner(ctx context.Context) (string, error) {
	quoted := make([]string, len(signerKeys))
	for i, k := range signerKeys {
		quoted[i] = regexp.QuoteMeta(k)
	}
	entries, err := r.repoEntries(ctx, "^("+strings.Join(quoted, "|")+")$")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.Repository() {
			return e.Key, nil
		}
	}
	return "", nil
}
