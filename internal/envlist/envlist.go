// Package envlist reads and sets an environment as a program is handed
// one: a list of NAME=value entries. A name given twice is read as its
// last entry, as os/exec passes it to the program (exec.Cmd keeps the
// last of a name), so setting a name removes every earlier entry of it.
package envlist

import (
	"slices"
	"strings"
)

// Value is name's value in env: its last entry's, "" when unset.
func Value(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// With sets each NAME=value of kvs in env: every entry of the name goes,
// and kv is added. env's array may be reused.
func With(env []string, kvs ...string) []string {
	for _, kv := range kvs {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}
