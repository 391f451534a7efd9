//go:build !linux

package fswatch

import "errors"

// ErrUnavailable is returned where notifications cannot be had.
var ErrUnavailable = errors.New("fswatch: file-system notifications are unavailable")

// Watcher is unavailable outside Linux: callers scan in full.
type Watcher struct{}

// Changes is what happened since the last call.
type Changes struct {
	Paths []string
	Lost  string
}

func New() (*Watcher, error)        { return nil, ErrUnavailable }
func (w *Watcher) Add(string)       {}
func (w *Watcher) Watched() int     { return 0 }
func (w *Watcher) Changes() Changes { return Changes{Lost: "unavailable"} }
func (w *Watcher) Reset()           {}
func (w *Watcher) Close()           {}
