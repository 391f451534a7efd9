package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/anvil-dev/anvil/internal/execpolicy"
	"github.com/anvil-dev/anvil/internal/proc"
)

// containmentProbeTimeout bounds the wait for the probe to exit.
const containmentProbeTimeout = 10 * time.Second

// checkContainment starts a program as the language servers start, and
// says whether it ran with the policy's hidden places covered: where the
// kernel gives no namespace, a server follows a workspace's link into the
// home's credential stores.
func checkContainment(policy *execpolicy.Policy) Check {
	c := Check{Group: GroupServer, Name: "containment"}
	contain := policy.Containment()
	if contain == nil {
		c.Status, c.Detail = Warn, "the language servers run uncontained: no helper to contain them"
		return c
	}
	stderr := proc.NewTail(4 << 10)
	p, err := proc.Start(proc.Spec{Path: "/bin/sh", Args: []string{"-c", "exit 0"}, Contain: contain, Stderr: stderr})
	if err != nil {
		c.Status, c.Detail = Fail, "could not start a contained program, so no language server starts: "+err.Error()
		return c
	}
	p.Stop(context.Background(), containmentProbeTimeout)
	switch {
	case p.Err() != nil:
		c.Status = Fail
		c.Detail = fmt.Sprintf("the helper could not contain a program (%v: %s), so no language server starts", p.Err(), stderr.String())
		return c
	case !p.Contained():
		c.Status = Warn
		c.Detail = "the language servers run uncontained: the kernel gives Anvil no mount namespace here, so a server that follows a workspace's link or include into the home can read the credential stores"
		c.Fix = "run Anvil where unprivileged user namespaces are allowed (sysctl kernel.unprivileged_userns_clone=1; in a container, a profile that allows unshare)"
		return c
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("the language servers run in a mount namespace of their own, %d places hidden (credential stores, Anvil's state and configuration, runtime directories)", len(contain.Hidden))
	if contain.Home != "" {
		c.Detail += fmt.Sprintf("; of the home %s they see only the %d places they need (the workspace, Anvil's tools, the toolchains, their caches)", contain.Home, len(contain.Shown)+len(contain.Caches))
	}
	return c
}
