// Package testenv is the shared kit of Lode's integration tests under
// test/: each test opens its own embedded instance on a temporary
// directory (Open), and the helpers here run commands, check error codes,
// walk explain plans and load data the same way in every area.
//
// Acceptance-size data sets (millions of documents, hundreds of thousands
// of jobs) run only when LODE_ACCEPTANCE=1, as .ci/run sets; the everyday
// `go test ./...` uses a smaller size that asserts the same behaviour
// (see Size).
package testenv

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
)

// Open starts an embedded Lode on a fresh t.TempDir() and returns it with
// its "test" database; it is closed when the test ends.
func Open(t testing.TB, opts ...lode.Option) (*lode.DB, *mongo.Database) {
	t.Helper()
	db, err := lode.Open(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, db.Client().Database("test")
}

// Ctx returns a context that ends with the test or after two minutes.
// The driver turns its deadline into maxTimeMS on commands that take one.
func Ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// HostPort returns the host:port db listens on.
func HostPort(db *lode.DB) string {
	h := strings.TrimPrefix(db.URI(), "mongodb://")
	if i := strings.IndexByte(h, '/'); i >= 0 {
		h = h[:i]
	}
	return h
}

// Acceptance reports whether LODE_ACCEPTANCE is set: acceptance-size runs
// (.ci/run sets it), not the everyday test command.
func Acceptance() bool { return os.Getenv("LODE_ACCEPTANCE") != "" }

// Size returns acceptance under LODE_ACCEPTANCE=1 and everyday otherwise:
// a test's data size, where the smaller one still shows the behaviour
// the test asserts.
func Size(everyday, acceptance int) int {
	if Acceptance() {
		return acceptance
	}
	return everyday
}

// AcceptanceOnly skips t unless LODE_ACCEPTANCE is set.
func AcceptanceOnly(t testing.TB) {
	t.Helper()
	if !Acceptance() {
		Skip(t, GroupAcceptance, "acceptance test: set LODE_ACCEPTANCE=1 to run it")
	}
}
