package lode_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
)

// durOpen opens an embedded Lode in a temporary directory and returns it
// with its "test" database.
func durOpen(t *testing.T, opts ...lode.Option) (*lode.DB, *mongo.Database) {
	t.Helper()
	db, err := lode.Open(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, db.Client().Database("test")
}

func asCmdErr(err error, ce *mongo.CommandError) bool {
	return errors.As(err, ce)
}
