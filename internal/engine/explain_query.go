package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
)

// ExplainedQuery is a find or count planned as explain plans it, whose
// results stream to the caller: the query under an aggregate's $cursor
// stage (and those of $lookup) when the aggregate is explained. Once the
// caller has drained it, Explain renders it as Explain would have.
type ExplainedQuery struct {
	x     *explainRun
	ctx   context.Context
	works int
	eof   bool
}

// ExplainQuery plans spec (a find, or with ExplainCountOp a count) for
// explain. At queryPlanner verbosity it returns no results. The caller
// must Close it.
func (e *Engine) ExplainQuery(ctx context.Context, db, coll string, spec ExplainSpec) (*ExplainedQuery, error) {
	if spec.Kind != ExplainFindOp && spec.Kind != ExplainCountOp {
		return nil, errs.New(errs.BadValue, "ExplainQuery explains finds and counts only")
	}
	x, err := e.prepareExplain(ctx, db, coll, spec)
	if err != nil {
		return nil, err
	}
	return &ExplainedQuery{x: x, ctx: ctx}, nil
}

// Next returns the next result, or nil at the end. A count returns none
// (Counted has its figure once Next has returned nil).
func (q *ExplainedQuery) Next() (bsoncore.Document, error) {
	if q.eof || q.x.closed || !q.x.verbose() {
		return nil, nil
	}
	for {
		q.works++
		if q.works&255 == 0 {
			if err := q.ctx.Err(); err != nil {
				return nil, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
		}
		st, m, err := q.x.bp.root.Work()
		if err != nil {
			return nil, err
		}
		switch st {
		case exec.Advanced:
			q.x.nReturned++
			return m.Doc, nil
		case exec.EOF:
			q.eof = true
			return nil, nil
		}
	}
}

// Close releases the plan and its snapshot; Explain, Counted and Totals
// still answer.
func (q *ExplainedQuery) Close() error {
	q.x.close()
	return nil
}

// Counted returns what a count counted.
func (q *ExplainedQuery) Counted() int64 {
	if c, ok := q.x.bp.root.(*exec.Count); ok {
		return c.N()
	}
	return 0
}

// Explain renders {queryPlanner, executionStats?} (executionStats with
// allPlansExecution at that verbosity) as Explain does, without
// explainVersion.
func (q *ExplainedQuery) Explain() bsoncore.Document {
	return narrowInts(q.x.render(false))
}

// QueryTotals are the figures of one query that $lookup adds up.
type QueryTotals struct {
	KeysExamined, DocsExamined int64
	// CollScan is set when the plan scans the collection.
	CollScan bool
	// Indexes names the indexes the plan scans.
	Indexes []string
}

// Totals returns the keys and documents examined so far and what the
// plan scans.
func (q *ExplainedQuery) Totals() QueryTotals {
	t := exec.Sum(q.x.bp.root)
	out := QueryTotals{KeysExamined: t.KeysExamined, DocsExamined: t.DocsExamined}
	if q.x.bp.sol != nil {
		walkSolution(q.x.bp.sol.Root, func(n *plan.Node) {
			if n.Stage == plan.StageCollScan {
				out.CollScan = true
			}
			if n.Index != nil {
				for _, name := range out.Indexes {
					if name == n.Index.Name {
						return
					}
				}
				out.Indexes = append(out.Indexes, n.Index.Name)
			}
		})
	}
	return out
}

func walkSolution(n *plan.Node, fn func(*plan.Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Children {
		walkSolution(c, fn)
	}
}
