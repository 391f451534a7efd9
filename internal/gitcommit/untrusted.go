package gitcommit

import (
	"context"
	"strings"
)

// In a workspace the user does not trust, nothing the repository's own
// configuration names runs: untrustedConfig turns off its hooks and its
// core.fsmonitor program, and the programs git would run for a commit
// that only a configuration key names — a clean filter's or filter
// process's command, a signing program — are looked up by where they are
// set: one the repository's own configuration sets (.git/config, a
// worktree's, what they include) refuses the commit, with the one command
// that trusts the workspace; the user's own (global, system) runs.

// repoSets reports whether the repository's own configuration sets key.
func (r *repo) repoSets(ctx context.Context, key string) bool {
	out, err := r.git(ctx, r.top, nil, "config", "--show-scope", "--get-all", key)
	if err != nil {
		return false // not set anywhere (git config exits 1)
	}
	for line := range strings.Lines(out) {
		scope, _, _ := strings.Cut(line, "\t")
		if scope == "local" || scope == "worktree" {
			return true
		}
	}
	return false
}

// repoFilter returns a filter driver whose program the repository's own
// configuration names (filter.NAME.clean, .smudge or .process), "" for
// none: git runs it for any file whose attributes name it, in more
// commands than git add (a refresh of the index, a dry run of add), so
// its presence alone refuses an untrusted commit.
func (r *repo) repoFilter(ctx context.Context) string {
	out, err := r.git(ctx, r.top, nil, "config", "--show-scope", "--get-regexp", `^filter\..*\.(clean|smudge|process)$`)
	if err != nil {
		return "" // none set anywhere (git config exits 1)
	}
	for line := range strings.Lines(out) {
		scope, kv, _ := strings.Cut(line, "\t")
		if scope != "local" && scope != "worktree" {
			continue
		}
		key, _, _ := strings.Cut(kv, " ")
		return strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(key, "filter."), ".clean"), ".smudge"), ".process")
	}
	return ""
}

// repoSigner returns the signing program key the repository's own
// configuration sets, "" for none.
func (r *repo) repoSigner(ctx context.Context) string {
	for _, key := range []string{"gpg.program", "gpg.openpgp.program", "gpg.x509.program", "gpg.ssh.program"} {
		if r.repoSets(ctx, key) {
			return key
		}
	}
	return ""
}
