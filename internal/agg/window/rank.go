package window

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// parseRank parses $rank, $denseRank and $documentNumber: {} as the
// argument, no window, and a sortBy of exactly one field, whose sort key
// is compared between neighbours.
func parseRank(s *Spec, arg bsoncore.Value, hasWin bool, _ bsoncore.Value, pc *ParseContext) error {
	if hasWin {
		return errs.New(errs.Location5371601, "Rank style window functions take no other arguments")
	}
	if arg.Type != bsoncore.TypeEmbeddedDocument || len(arg.Data) != 5 {
		return errs.New(errs.Location5371603, "%s must be specified with '{}' as the value", s.Name)
	}
	if pc.SortBy == nil || len(pc.SortBy.Fields) != 1 {
		return errs.New(errs.Location5371602, "%s must be specified with a top level sortBy expression with exactly one element", s.Name)
	}
	// mongod 7.0 ranks by the value of the field path "$<sortBy field>",
	// compared as values: a missing field is below null (8.0 made them
	// equal), and an array is compared whole, not by its sort key.
	in, err := expr.Parse(expr.String("$"+pc.SortBy.Fields[0].Path), pc.Expr)
	if err != nil {
		return err
	}
	s.noWindow, s.Bounds = true, toCurrent
	name := s.Name
	coll := pc.Expr.Collator
	s.fresh = func(vars *expr.Vars) (Func, error) {
		return &rankFunc{name: name, in: in, vars: vars, coll: coll}, nil
	}
	return nil
}

// rankFunc numbers the documents of a partition in sort order: ties
// (equal sortBy values; null and missing differ) share a $rank or
// $denseRank.
type rankFunc struct {
	name           string
	in             expr.Expr
	vars           *expr.Vars
	n, rank, dense int64
	prev           bsoncore.Value
	coll           *collation.Collator // ties are equal under it
}

func (r *rankFunc) Add(doc bsoncore.Document) error {
	k, err := r.in.Eval(doc, r.vars)
	if err != nil {
		return err
	}
	r.n++
	if r.n == 1 || expr.CompareWith(r.coll, k, r.prev) != 0 {
		r.rank = r.n
		r.dense++
		r.prev = bsoncore.Value{Type: k.Type, Data: append([]byte(nil), k.Data...)}
	}
	return nil
}

func (r *rankFunc) Remove() error { return nil }

func (r *rankFunc) Result(int64) (bsoncore.Value, error) {
	switch r.name {
	case "$rank":
		return intValue(r.rank), nil
	case "$denseRank":
		return intValue(r.dense), nil
	}
	return intValue(r.n), nil
}

func (r *rankFunc) MemUsage() int64 { return 64 + int64(len(r.prev.Data)) }

// parseShift parses $shift: {output, by, default}; it needs a sortBy and
// takes no window. Its window is the one document 'by' positions away.
func parseShift(s *Spec, arg bsoncore.Value, hasWin bool, _ bsoncore.Value, pc *ParseContext) error {
	if pc.SortBy == nil {
		return errs.New(errs.FailedToParse, "$shift requires a sortBy")
	}
	if hasWin {
		return errs.New(errs.FailedToParse, "$shift does not accept a 'window' field")
	}
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return errs.New(errs.FailedToParse, "Argument to $shift must be an object")
	}
	var out expr.Expr
	var by int64
	hasBy := false
	def := expr.Null
	elems, _ := arg.Document().Elements()
	for _, el := range elems {
		var err error
		switch el.Key() {
		case "output":
			if out, err = expr.Parse(el.Value(), pc.Expr); err != nil {
				return err
			}
		case "by":
			i, ok := integral(el.Value())
			if !ok || i != int64(int32(i)) {
				return errs.New(errs.FailedToParse, "'$shift:by' field must be an integer, but found by: %s", bsonutil.FormatValue(el.Value(), bsonutil.Style{}))
			}
			by, hasBy = i, true
		case "default":
			c, ok, err := constant(el.Value(), pc.Expr)
			if err != nil {
				return err
			}
			if !ok {
				return errs.New(errs.FailedToParse, "'$shift:default' expression must yield a constant value.")
			}
			def = c
		default:
			return errs.New(errs.FailedToParse, "Unknown argument in $shift: %s", el.Key())
		}
	}
	if out == nil {
		return errs.New(errs.FailedToParse, "$shift requires an 'output' expression.")
	}
	if !hasBy {
		return errs.New(errs.FailedToParse, "$shift requires 'by' as an integer value.")
	}
	s.noWindow = true
	s.Bounds = Bounds{Lo: by, Hi: by}
	s.fresh = func(vars *expr.Vars) (Func, error) { return &shiftFunc{out: out, def: def, vars: vars}, nil }
	return nil
}

// shiftFunc is $shift: the output expression evaluated on the one document
// of its window, or the default when that position is outside the
// partition.
type shiftFunc struct {
	out  expr.Expr
	def  bsoncore.Value
	vars *expr.Vars
	q    queue
}

func (s *shiftFunc) Add(doc bsoncore.Document) error {
	v, err := s.out.Eval(doc, s.vars)
	if err != nil {
		return err
	}
	s.q.push(v)
	return nil
}

func (s *shiftFunc) Remove() error { s.q.pop(); return nil }

// Result is the shifted document's value; outside the partition, or
// when the output is missing there, the default (as mongod's jstests
// shift.js shows).
func (s *shiftFunc) Result(int64) (bsoncore.Value, error) {
	if s.q.len() == 0 || s.q.front().Type == 0 {
		return s.def, nil
	}
	return s.q.front(), nil
}

func (s *shiftFunc) MemUsage() int64 { return s.q.memUsage() }

// intValue is n as an int32 when it fits, else an int64.
func intValue(n int64) bsoncore.Value {
	if n == int64(int32(n)) {
		return expr.Int32(int32(n))
	}
	return expr.Int64(n)
}
