package validation

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestWarnIsLogged: with validationAction warn the failing write
// succeeds and the server logs "Document would fail validation" with the
// namespace, as mongod does (log id 20294).
func TestWarnIsLogged(t *testing.T) {
	t.Parallel()
	var buf testenv.LogBuffer
	_, d := testenv.Open(t, lode.WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "warned", bson.E{Key: "validator", Value: qtyValidator}, bson.E{Key: "validationAction", Value: "warn"})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "qty", Value: -1}}); err != nil {
		t.Fatalf("insert with warn: %v", err)
	}
	out := buf.String()
	if !strings.Contains(out, "Document would fail validation") || !strings.Contains(out, d.Name()+".warned") {
		t.Errorf("log has no validation warning for the namespace:\n%s", out)
	}
	// A valid write logs nothing more.
	before := strings.Count(buf.String(), "Document would fail validation")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "qty", Value: 1}, {Key: "name", Value: "n"}}); err != nil {
		t.Fatal(err)
	}
	if after := strings.Count(buf.String(), "Document would fail validation"); after != before {
		t.Errorf("a valid insert logged a validation warning")
	}
}

// TestValidationInTransaction: a write inside a transaction is checked;
// the failure is a write error the transaction can abort after.
func TestValidationInTransaction(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "txn", bson.E{Key: "validator", Value: qtyValidator})
	sess, err := d.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		return coll.InsertOne(sc, bson.D{{Key: "_id", Value: 1}, {Key: "qty", Value: -1}})
	}, options.Transaction())
	wantValidationFailure(t, "insert in transaction", err)
	if n := testenv.Count(t, coll, bson.D{}); n != 0 {
		t.Errorf("%d documents after the failed transaction", n)
	}
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		return coll.InsertOne(sc, bson.D{{Key: "_id", Value: 2}, {Key: "qty", Value: 1}, {Key: "name", Value: "x"}})
	})
	if err != nil {
		t.Fatalf("valid insert in transaction: %v", err)
	}
}

// TestValidatorNamespaces: mongod refuses validators on system
// collections and in admin, local and config with InvalidOptions (72).
func TestValidatorNamespaces(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	cl := d.Client()
	for _, tc := range []struct {
		db   *mongo.Database
		coll string
	}{
		{cl.Database("admin"), "v"},
		{cl.Database("config"), "v"},
		{d, "system.js"},
	} {
		_, err := testenv.RunCmd(t, tc.db, bson.D{{Key: "create", Value: tc.coll}, {Key: "validator", Value: qtyValidator}})
		testenv.WantCode(t, tc.db.Name()+"."+tc.coll, err, 72)
	}
}
