package engine

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// TestStoredInvalidValidatorRefusesWrites: a validator stored before Lode
// checked validators, which no longer parses, makes writes fail with its
// parse error instead of letting every document through.
func TestStoredInvalidValidatorRefusesWrites(t *testing.T) {
	bad := bsoncore.NewDocumentBuilder().AppendDocument("validator",
		bsoncore.NewDocumentBuilder().AppendDocument("a",
			bsoncore.NewDocumentBuilder().AppendInt32("$bogus", 1).Build()).Build()).Build()
	v := validatorOf(bad)
	if v == nil || v.invalid == nil {
		t.Fatalf("validatorOf(%v) = %+v, want an invalid validator", bad, v)
	}
	e := openTest(t, "")
	if err := e.CreateCollection("db", "c", CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := e.cat.Load().lookup("db", "c")
	n := c.copyMeta()
	n.Options, n.validator = bad, v
	e.publish(n)
	doc := bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()
	res, err := e.Insert(context.Background(), "db", "c", []bsoncore.Document{doc}, WriteOptions{Ordered: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Code != errs.BadValue {
		t.Fatalf("insert = %+v, want the validator's parse error (BadValue)", res)
	}
	res, err = e.Insert(context.Background(), "db", "c", []bsoncore.Document{doc}, WriteOptions{Ordered: true, BypassDocumentValidation: true})
	if err != nil || len(res.WriteErrors) != 0 || res.N != 1 {
		t.Fatalf("insert with bypass = %+v %v", res, err)
	}
}
