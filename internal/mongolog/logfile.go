package mongolog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// RotateSuffixLayout is the time layout of the suffix a rotated log file
// gets, in UTC, as mongod names it: mongod.log.2026-11-29T05-20-56.
const RotateSuffixLayout = "2006-01-02T15-04-05"

// File is a server log file (mongod's systemLog.path) that the logRotate
// command and SIGUSR1 can rotate. Writes are serialized; a rotation
// happens between two writes.
type File struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	reopen bool
	now    func() time.Time
}

// OpenFile opens the log file at path. With appendLog (mongod's
// logAppend) new lines go after the file's existing ones; without it an
// existing file is first renamed aside with a timestamp suffix, as
// mongod does at startup. With reopen (mongod's logRotate: reopen) a
// rotation closes and reopens path, expecting another program (logrotate)
// to have moved the file; otherwise it renames the file itself.
func OpenFile(path string, appendLog, reopen bool) (*File, error) {
	lf := &File{path: path, reopen: reopen, now: time.Now}
	if !appendLog {
		if _, err := os.Stat(path); err == nil {
			if _, err := lf.renameAside(); err != nil {
				return nil, err
			}
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	lf.f = f
	return lf, nil
}

// Path returns the log file's path.
func (lf *File) Path() string { return lf.path }

// Write implements io.Writer.
func (lf *File) Write(p []byte) (int, error) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.f == nil {
		return 0, fs.ErrClosed
	}
	return lf.f.Write(p)
}

// Rotate rotates the log: in rename mode the file is renamed to
// path.<UTC time> and a new file opened at path, and renamed is the old
// file's new name; in reopen mode path is closed and opened again.
func (lf *File) Rotate() (renamed string, err error) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.f == nil {
		return "", fs.ErrClosed
	}
	if !lf.reopen {
		if renamed, err = lf.renameAside(); err != nil {
			return "", err
		}
	}
	f, err := os.OpenFile(lf.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return renamed, fmt.Errorf("reopen the log file %s: %w", lf.path, err)
	}
	old := lf.f
	lf.f = f
	_ = old.Close()
	return renamed, nil
}

// ErrRotateTargetExists is returned by Rotate when the rotated file's
// name is taken (two rotations within one second).
var ErrRotateTargetExists = errors.New("destination already exists")

// renameAside renames the file at path to path.<UTC time>.
func (lf *File) renameAside() (string, error) {
	target := lf.path + "." + lf.now().UTC().Format(RotateSuffixLayout)
	if _, err := os.Lstat(target); err == nil {
		return "", fmt.Errorf("renaming file %s to %s failed: %w", lf.path, target, ErrRotateTargetExists)
	}
	if err := os.Rename(lf.path, target); err != nil {
		return "", fmt.Errorf("renaming file %s to %s failed: %w", lf.path, target, err)
	}
	return target, nil
}

// Close closes the file; later writes fail.
func (lf *File) Close() error {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.f == nil {
		return nil
	}
	err := lf.f.Close()
	lf.f = nil
	return err
}
