package engine

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
)

// report makes st receive b's figures: its plan summary now, the keys
// and documents examined when b closes or the command ends. filterDoc is
// the query's filter when the plan may be IDHACK (nil otherwise).
func (b *builtPlan) report(st *opstats.Stats, filterDoc bsoncore.Document) {
	b.st = st
	b.summary = planSummary(b.sol, filterDoc)
	if cs := countScanOf(b.root); cs != nil {
		b.summary = "COUNT_SCAN " + keyPatternString(b.sol.Root.Index.KeyPattern)
	}
	st.Plan(b.summary, b.sol != nil && b.sol.BlockingSort)
	if b.keyed && !st.HasPlanCacheKey {
		st.QueryHash, st.PlanCacheKey, st.HasPlanCacheKey = uint32(b.shape>>32), b.key, true
	}
	st.Attach(b)
}

// switchStats moves b to the command now driving it (a getMore): what b
// examined so far goes to the previous one.
func (b *builtPlan) switchStats(st *opstats.Stats) {
	if b.st == st {
		if st != nil {
			st.Attach(b)
		}
		return
	}
	if b.st != nil {
		b.flushTo(b.st)
		b.st.Detach(b)
	}
	b.st = st
	if st != nil {
		if b.summary == "" {
			b.summary = planSummary(b.sol, nil)
		}
		st.Plan(b.summary, b.sol != nil && b.sol.BlockingSort)
		st.Attach(b)
	}
}

// FlushStats implements opstats.Flusher.
func (b *builtPlan) FlushStats(st *opstats.Stats) { b.flushTo(st) }

// flushTo adds to st what b examined since its last report: one walk of
// the stage tree, done when a command ends or the plan closes.
func (b *builtPlan) flushTo(st *opstats.Stats) {
	if st == nil || b.root == nil {
		return
	}
	t := exec.Sum(b.root)
	st.KeysExamined += t.KeysExamined - b.rep.KeysExamined
	st.DocsExamined += t.DocsExamined - b.rep.DocsExamined
	if t.HasSort {
		st.HasSortStage = true
	}
	if t.UsedDisk {
		st.UsedDisk = true
	}
	b.rep = t
}

// countScanOf returns the COUNT_SCAN under a count's root, if any.
func countScanOf(root exec.Stage) exec.Stage {
	if c, ok := root.(*exec.Count); ok {
		for _, k := range c.Children() {
			if cs, ok := k.(*exec.CountScan); ok {
				return cs
			}
		}
	}
	return nil
}

// planSummary renders sol as mongod's planSummary: the leaves of the plan,
// "IXSCAN { a: 1, b: -1 }" per index scan, "COLLSCAN", "EOF", or "IDHACK"
// for an equality on _id alone (mongod 7.0's fast path).
func planSummary(sol *plan.Solution, filterDoc bsoncore.Document) string {
	if sol == nil || sol.Root == nil {
		return "EOF"
	}
	if isIDHack(sol, filterDoc) {
		return "IDHACK"
	}
	var parts []string
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if len(n.Children) == 0 {
			switch {
			case n.Index != nil:
				s := n.Stage
				if n.Stage == plan.StageFetch {
					s = plan.StageIxScan
				}
				parts = append(parts, s+" "+keyPatternString(n.Index.KeyPattern))
			case n.ClusterBounds != nil:
				parts = append(parts, "CLUSTERED_IXSCAN")
			default:
				parts = append(parts, n.Stage)
			}
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(sol.Root)
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts, ", ")
}

// isIDHack reports a plan mongod 7.0 answers with IDHACK: a filter that is
// exactly {_id: <scalar>} over the _id index.
func isIDHack(sol *plan.Solution, filterDoc bsoncore.Document) bool {
	if sol.Index == nil || sol.Index.Name != "_id_" || sol.BlockingSort || len(filterDoc) <= 5 {
		return false
	}
	el, err := filterDoc.IndexErr(0)
	if err != nil || el.Key() != "_id" {
		return false
	}
	if _, err := filterDoc.IndexErr(1); err == nil {
		return false
	}
	switch el.Value().Type {
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray, bsoncore.TypeRegex, bsoncore.TypeUndefined:
		return false
	}
	return true
}

// keyPatternString renders a key pattern as mongod's planSummary does:
// "{ a: 1, b: -1 }", string values quoted.
func keyPatternString(kp bsoncore.Document) string {
	elems, _ := kp.Elements()
	var sb strings.Builder
	sb.WriteString("{ ")
	for i, e := range elems {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(e.Key())
		sb.WriteString(": ")
		v := e.Value()
		switch v.Type {
		case bsoncore.TypeString:
			sb.WriteString(strconv.Quote(v.StringValue()))
		case bsoncore.TypeInt32:
			sb.WriteString(strconv.Itoa(int(v.Int32())))
		case bsoncore.TypeInt64:
			sb.WriteString(strconv.FormatInt(v.Int64(), 10))
		case bsoncore.TypeDouble:
			sb.WriteString(strconv.FormatFloat(v.Double(), 'g', -1, 64))
		default:
			sb.WriteString(v.String())
		}
	}
	sb.WriteString(" }")
	return sb.String()
}
