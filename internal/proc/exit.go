package proc

// ExitError says a process Anvil owns has ended: which, how (the wait's
// error, nil for status 0), and the tail of its standard error. The
// clients of the servers return it, so that a caller reads the last
// output from the error rather than from its text.
type ExitError struct {
	Name   string
	Err    error
	Stderr string
}

func (e *ExitError) Error() string {
	msg := e.Name + " exited"
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Stderr != "" {
		msg += "; stderr: " + e.Stderr
	}
	return msg
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitError describes how the process ended, named name, with stderr's
// tail; nil while it runs.
func (p *Process) ExitError(name string, stderr *Tail) error {
	if p.Alive() {
		return nil
	}
	return &ExitError{Name: name, Err: p.Err(), Stderr: stderr.String()}
}
