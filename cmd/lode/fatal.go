package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/internal/storage"
)

// levelFatal is the level of the line lode serve logs before exiting on
// a storage failure: severity F in the JSON log, FATAL in the text log.
const levelFatal = slog.LevelError + 4

// exitFatal is the exit status after a storage failure: mongod's 14,
// "an unrecoverable error ... exits without performing a clean
// shutdown".
const exitFatal = 14

// storageFatal is lode serve's storage.Options.OnFailure. A write to the
// data directory failed (disk full, EIO): like mongod, which logs a fatal
// assertion and aborts, it logs one fatal line naming the data path and
// the free space and exits at once. Every write acknowledged with j:true
// was fsynced before its reply, and the write-ahead log is replayed at
// the next start; a start on a still-full disk is refused
// (storage.ErrNoSpace).
func storageFatal(log *slog.Logger, f *storage.Failure) {
	msg := "Writing to the data directory failed: exiting"
	if f.DiskFull {
		msg = "Out of disk space: writing to the data directory failed: exiting"
	}
	log.Log(context.Background(), levelFatal, msg, mongolog.KeyComponent, "STORAGE", mongolog.KeyID, mongolog.IDStorageFatal,
		"dataPath", f.Dir, "freeBytes", f.FreeBytes, "error", f.Err.Error(), "exitCode", exitFatal)
	os.Exit(exitFatal)
}

// fatalLevelName names levelFatal FATAL in the text log (slog would write
// ERROR+4).
func fatalLevelName(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.LevelKey {
		if l, ok := a.Value.Any().(slog.Level); ok && l == levelFatal {
			a.Value = slog.StringValue("FATAL")
		}
	}
	return a
}
