package doctor

import (
	"errors"
	"io/fs"
	"os"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/session"
	"github.com/anvil-dev/anvil/internal/state"
)

// checkSession makes sure the session base, where runs keep their logs
// and transcripts, is the user's own and can be written: it creates and
// removes a file there (and the base itself, if doctor had to create it).
func checkSession(cfg config.Config, getenv func(string) string) Check {
	base, from := session.Base("", getenv, cfg.SessionDir)
	c := Check{Group: GroupSession, Name: "session dir"}
	// A base someone else owns or can write to is refused by every run.
	if u := (*state.UnsafeError)(nil); errors.As(state.CheckPrivate(base), &u) {
		c.Status, c.Detail = Fail, u.Path+" ("+from+") "+u.Reason
		c.Fix = "remove it, or choose a base of your own: 'anvil config set session_dir /abs/dir --user' or ANVIL_SESSION_DIR"
		return c
	}
	if err := probeWritable(base); err != nil {
		c.Status, c.Detail = Fail, base+" ("+from+") is not writable: "+err.Error()
		c.Fix = "make it writable, or choose another base: 'anvil config set session_dir /abs/dir --user' or ANVIL_SESSION_DIR"
		return c
	}
	c.Detail = base + " (" + from + ") is writable"
	return c
}

func probeWritable(base string) error {
	_, statErr := os.Stat(base)
	created := errors.Is(statErr, fs.ErrNotExist)
	// 0700 as session.New makes it: sessions hold transcripts of the code.
	if err := os.MkdirAll(base, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(base, ".doctor-*")
	if err != nil {
		return err
	}
	_, werr := f.WriteString("anvil doctor\n")
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	if created {
		_ = os.Remove(base)
	}
	return errors.Join(werr, cerr, rerr)
}
