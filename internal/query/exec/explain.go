package exec

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// PlanDoc renders a stage tree as explain does: the plan shape for
// queryPlanner (execStats false), or executionStages with each stage's
// counters (execStats true).
func PlanDoc(s Stage, execStats bool) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("stage", s.Name())
	if f := shownFilter(s); len(f) > 5 {
		b.AppendDocument("filter", f)
	}
	if execStats {
		st := s.Stats()
		b.AppendInt64("nReturned", st.Advanced).
			AppendInt64("executionTimeMillisEstimate", st.nanos/1e6).
			AppendInt64("works", st.Works).
			AppendInt64("advanced", st.Advanced).
			AppendInt64("needTime", st.NeedTime).
			AppendInt64("needYield", 0).
			AppendInt64("saveState", 0).
			AppendInt64("restoreState", 0).
			AppendBoolean("isEOF", st.IsEOF)
	}
	s.explain(b, execStats)
	kids := s.Children()
	switch len(kids) {
	case 0:
	case 1:
		b.AppendDocument("inputStage", PlanDoc(kids[0], execStats))
	default:
		ab := bsoncore.NewArrayBuilder()
		for _, k := range kids {
			ab.AppendDocument(PlanDoc(k, execStats))
		}
		b.AppendArray("inputStages", ab.Build())
	}
	return b.Build()
}

func shownFilter(s Stage) bsoncore.Document {
	switch t := s.(type) {
	case *Fetch:
		return t.filterShown()
	case *CollScan:
		if t.filter != nil {
			return t.filterDoc
		}
	case *TextOr:
		return t.filterShown()
	}
	return nil
}

// Totals are the summary figures of executionStats.
type Totals struct {
	NReturned    int64
	KeysExamined int64
	DocsExamined int64
	// HasSort is set when the tree has a blocking SORT; UsedDisk when it
	// spilled.
	HasSort, UsedDisk bool
}

// Sum adds up keys and documents examined over a stage tree.
func Sum(s Stage) Totals {
	var t Totals
	walk(s, func(x Stage) {
		switch v := x.(type) {
		case *IxScan:
			t.KeysExamined += v.keysExamined
		case *CountScan:
			t.KeysExamined += v.keysExamined
		case *Fetch:
			t.DocsExamined += v.docsExamined
		case *CollScan:
			t.DocsExamined += v.docsExamined
		case *Sort:
			t.HasSort = true
			t.UsedDisk = t.UsedDisk || v.spills > 0
		}
	})
	return t
}

func walk(s Stage, fn func(Stage)) {
	fn(s)
	for _, c := range s.Children() {
		walk(c, fn)
	}
}
