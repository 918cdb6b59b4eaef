package expr

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/membudget"
)

// TestBuiltValueBudget checks that a value doubled through $reduce stops
// with ExceededMemoryLimit once it is past 16 MiB and the memory budget
// (48 MiB here) has no room for it, before Lode's 100 MiB bound.
func TestBuiltValueBudget(t *testing.T) {
	var raw bson.Raw
	src := `{"e":{"$reduce":{"input":{"$range":[0,40]},"initialValue":"xxxxxxxxxxxxxxxx","in":["$$value","$$value"]}}}`
	if err := bson.UnmarshalExtJSON([]byte(src), false, &raw); err != nil {
		t.Fatal(err)
	}
	v := raw.Lookup("e")
	e, err := Parse(bsoncore.Value{Type: bsoncore.Type(v.Type), Data: v.Value}, NewParseContext())
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := bson.Marshal(bson.D{})
	b := new(membudget.Budget)
	b.SetLimit(48 << 20)
	vars := NewVars(time.Now())
	vars.SetBudget(b)
	_, err = e.Eval(doc, vars)
	ee, ok := err.(*errs.Error)
	if !ok || ee.Code != errs.ExceededMemoryLimit || !strings.Contains(ee.Msg, "memory budget (0 bytes in use of 50331648)") {
		t.Fatalf("got %v", err)
	}
	// Without a budget the 100 MiB bound applies.
	_, err = e.Eval(doc, NewVars(time.Now()))
	if ee, ok := err.(*errs.Error); !ok || ee.Code != errs.ExceededMemoryLimit || !strings.Contains(ee.Msg, "104857600 bytes") {
		t.Fatalf("without a budget: %v", err)
	}
}
