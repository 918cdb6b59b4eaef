//go:build !linux

package storage

// walRawIO: the raw calls are Linux's; elsewhere logs use the os
// package's.
const walRawIO = false

func rawWrite(fd uintptr, name string, p []byte) (int, error) { panic("storage: no raw write here") }

func rawSync(fd uintptr, name string, data bool) error { panic("storage: no raw sync here") }
