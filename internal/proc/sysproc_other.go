//go:build unix && !linux

package proc

import "syscall"

// Outside Linux there are no PID namespaces and no parent-death signal:
// a process only leads a process group.
const namespaces = false

func sysProcAttr(Isolation, bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func namespaceRefused(err error) bool { return err == errNoNamespaces }
