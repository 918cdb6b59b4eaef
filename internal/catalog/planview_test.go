package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
)

func doc(t *testing.T, d bson.D) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The planner's views are cached when sealed, one per collation case; a
// copy of a sealed descriptor gets its own views when sealed, and builds
// them afresh until then.
func TestPlanIndexViews(t *testing.T) {
	ix, err := NewIndex(7, IndexSpec{Name: "a_1", Key: doc(t, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: -1}}),
		Collation: doc(t, bson.D{{Key: "locale", Value: "fr"}})})
	if err != nil {
		t.Fatal(err)
	}
	s, err := collation.Parse(doc(t, bson.D{{Key: "locale", Value: "en"}}))
	if err != nil {
		t.Fatal(err)
	}
	other := collation.New(s)
	fresh := ix.PlanIndex(ix.Collator)
	if fresh == ix.PlanIndex(ix.Collator) {
		t.Fatal("an unsealed descriptor returned a cached view")
	}
	c := &Collection{Indexes: []*Index{ix}}
	c.Seal()
	same, mis := ix.PlanIndex(ix.Collator), ix.PlanIndex(other)
	if same != ix.PlanIndex(ix.Collator) || mis != ix.PlanIndex(nil) {
		t.Fatal("sealed views are not cached")
	}
	if same.CollationMismatch || !mis.CollationMismatch {
		t.Fatalf("CollationMismatch: same %v, other %v", same.CollationMismatch, mis.CollationMismatch)
	}
	if same.ID != 7 || same.Name != "a_1" || len(same.Fields) != 2 || !same.Fields[1].Desc || same.Collation == nil {
		t.Fatalf("view %+v", same)
	}
	cp := *ix
	cp.Multikey, cp.MultikeyPaths = true, []string{"a"}
	if v := cp.PlanIndex(cp.Collator); v == same || !v.Multikey {
		t.Fatalf("a copy used its original's view: %+v", v)
	}
	(&Collection{Indexes: []*Index{&cp}}).Seal()
	if v := cp.PlanIndex(cp.Collator); !v.Multikey || v != cp.PlanIndex(cp.Collator) {
		t.Fatalf("sealed copy's view %+v", v)
	}
	if ix.PlanIndex(ix.Collator) != same || same.Multikey {
		t.Fatal("sealing a copy changed the original's views")
	}
}
