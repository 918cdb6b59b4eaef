package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/lodedb/lode/internal/storage"
)

// openError explains a failure to open the data directory, saying what
// to do for the cases a user can fix.
func openError(dir string, err error) error {
	switch {
	case errors.Is(err, storage.ErrLocked):
		return fmt.Errorf("the data directory %s is in use: another lode serve (or a program embedding Lode) has it open. Stop that process, or give this server another directory with --dir: %w", dir, err)
	case errors.Is(err, storage.ErrNoSpace):
		return fmt.Errorf("cannot start: %w", err)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("cannot write the data directory %s: check its permissions, or choose another with --dir: %w", dir, err)
	}
	return fmt.Errorf("open %s: %w", dir, err)
}

// listenError explains a failure to listen on addr.
func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("%s is already in use by another program (another lode serve, or a mongod?). Stop it, or choose another port with --addr, e.g. --addr 127.0.0.1:27018: %w", addr, err)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("not permitted to listen on %s (ports below 1024 need privileges): choose another port with --addr: %w", addr, err)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("%s is not an address of this machine: use 127.0.0.1 or one of its interfaces with --addr: %w", addr, err)
	}
	return fmt.Errorf("listen on %s: %w", addr, err)
}
