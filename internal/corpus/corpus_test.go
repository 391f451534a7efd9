package corpus

import "testing"

// The cache directory comes from the environment handed in, in its order
// of precedence, the last entry of a key winning as for a process; with
// no home it is none, never a directory relative to the test's.
func TestFromEnviron(t *testing.T) {
	for _, tc := range []struct {
		environ []string
		want    string
	}{
		{[]string{"HOME=/h"}, "/h/.cache/anvil-corpus"},
		{[]string{"HOME=/h", "XDG_CACHE_HOME=/x"}, "/x/anvil-corpus"},
		{[]string{"HOME=/h", "XDG_CACHE_HOME=/x", "ANVIL_CORPUS_CACHE=/c"}, "/c"},
		{[]string{"HOME=/h", "HOME=/later"}, "/later/.cache/anvil-corpus"},
		{[]string{"HOME=/h", "XDG_CACHE_HOME=rel"}, "/h/.cache/anvil-corpus"},
		{nil, ""},
		{[]string{"HOME="}, ""},
	} {
		if got := FromEnviron(tc.environ).Dir(); got != tc.want {
			t.Errorf("FromEnviron(%q).Dir() = %q, want %q", tc.environ, got, tc.want)
		}
	}
}
