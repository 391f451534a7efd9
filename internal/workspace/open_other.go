//go:build !linux

package workspace

import (
	"os"
	"path/filepath"
	"syscall"
)

// openBeneath opens rel through os.Root, which follows symlinks inside the
// root and refuses escaping ones.
func (r *Root) openBeneath(rel string) (*os.File, error) {
	osr, err := r.osRoot()
	if err != nil {
		return nil, err
	}
	return osr.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// OpenFD is [Root.OpenFile] without the regular-file check, as a bare
// descriptor.
func (r *Root) OpenFD(rel string) (int, error) {
	f, err := r.openBeneath(rel)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	return syscall.Dup(int(f.Fd()))
}
