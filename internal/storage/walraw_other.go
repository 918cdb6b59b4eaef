//go:build !linux

package storage

import "errors"

// walRawIO: the raw calls are Linux's; elsewhere logs use the os
// package's.
const walRawIO = false

func rawWrite(fd uintptr, name string, p []byte) (int, error) { panic("storage: no raw write here") }

func rawSync(fd uintptr, name string, data bool) error { panic("storage: no raw sync here") }

func rawPwrite(fd uintptr, name string, p []byte, off int64) (int, error) {
	panic("storage: no raw write here")
}

// openDirect: no direct writes here.
func openDirect(name string) (int, error) { return -1, errNoDirect }

func closeDirect(fd int) {}

func rawPwriteDirect(fd int, name string, p []byte, off int64) error {
	panic("storage: no direct write here")
}

var errNoDirect = errors.New("storage: no O_DIRECT here")
