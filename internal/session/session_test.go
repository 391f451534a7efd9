package session

import "testing"

func TestBase(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "ANVIL_SESSION_DIR" {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		override, env, configured, want, from string
	}{
		{"/o", "/e", "/c", "/o", "set for this run"},
		{"", "/e", "/c", "/e", "ANVIL_SESSION_DIR"},
		{"", "", "/c", "/c", "session_dir in the config"},
		{"", "", "", DefaultBase(env("")), "default"},
	} {
		if base, from := Base(tt.override, env(tt.env), tt.configured); base != tt.want || from != tt.from {
			t.Errorf("Base(%q, %q, %q) = %q, %q", tt.override, tt.env, tt.configured, base, from)
		}
	}
}
