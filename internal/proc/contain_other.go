//go:build !linux

package proc

// Main returns at once: outside Linux there are no mount namespaces to
// contain a process in.
func Main(func(string) string) {}

// containedStart starts the program itself: outside Linux a process is
// not contained (the policy's documentation says so).
func containedStart(spec Spec) (string, []string, []string, error) {
	return spec.Path, spec.Args, spec.Env, nil
}
