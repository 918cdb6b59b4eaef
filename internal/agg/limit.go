package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The registry entries of the stages in this file (stagedef.go).
func init() {
	registerStage("$limit", stageDef{parse: parseLimit, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeNumber})
	registerStage("$skip", stageDef{parse: parseSkip, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeNumber})
}

// limitStage is $limit.
type limitStage struct{ n int64 }

// skipStage is $skip.
type skipStage struct{ n int64 }

// pushStep: a $skip is the scan's skip.
func (s *skipStage) pushStep() pushStep { return pushSkip }

// pushInto makes the skip the scan's, unless a limit went down before it.
func (s *skipStage) pushInto(_ *Pipeline, spec *FindSpec) (stage, bool) {
	if spec.Limit != 0 {
		return nil, false
	}
	spec.Skip = s.n
	return nil, true
}

// pushStep: a $limit is the scan's limit.
func (s *limitStage) pushStep() pushStep { return pushLimit }

// pushInto makes the limit the scan's, unless one went down before it.
func (s *limitStage) pushInto(_ *Pipeline, spec *FindSpec) (stage, bool) {
	if spec.Limit != 0 {
		return nil, false
	}
	spec.Limit = s.n
	return nil, true
}

// absorb keeps the smallest of consecutive $limits (coalesce).
func (s *limitStage) absorb(next stage) bool {
	l, ok := next.(*limitStage)
	if !ok {
		return false
	}
	if l.n < s.n {
		s.n = l.n
	}
	return true
}

// absorb adds up consecutive $skips (coalesce).
func (s *skipStage) absorb(next stage) bool {
	k, ok := next.(*skipStage)
	if !ok {
		return false
	}
	if s.n > math.MaxInt64-k.n {
		s.n = math.MaxInt64
	} else {
		s.n += k.n
	}
	return true
}

// stageInt reads the positive/non-negative integer argument of $limit and
// $skip with MongoDB's messages.
func stageInt(name string, v bsoncore.Value) (int64, error) {
	if !bsonutil.IsNumber(v.Type) {
		code := errs.Location15957
		if name == "$skip" {
			code = 15972
		}
		return 0, errs.New(code, "the %s must be specified as a number", name[1:])
	}
	f := bsonutil.AsFloat64(v)
	n := bsonutil.AsInt64(v)
	if float64(n) != f {
		code := errs.Location15957
		if name == "$skip" {
			code = 15972
		}
		return 0, errs.New(code, "invalid argument to %s stage: Cannot represent as a 64-bit integer: %s: %s", name, name, v.String())
	}
	return n, nil
}

func parseLimit(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	n, err := stageInt("$limit", v)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, errs.New(errs.Location15958, "the limit must be positive")
	}
	return []stage{&limitStage{n}}, nil
}

func parseSkip(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	n, err := stageInt("$skip", v)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errs.New(errs.Location15956, "invalid argument to $skip stage: Expected a non-negative number in: $skip: %d", n)
	}
	return []stage{&skipStage{n}}, nil
}

func (l *limitStage) name() string { return "$limit" }
func (s *skipStage) name() string  { return "$skip" }

func (l *limitStage) spec() bsoncore.Document {
	return specDoc("$limit", bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, l.n)})
}

func (s *skipStage) spec() bsoncore.Document {
	return specDoc("$skip", bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, s.n)})
}

func (l *limitStage) open(_ *runCtx, in Iterator) (Iterator, error) {
	left := l.n
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if left <= 0 {
				return nil, nil
			}
			left--
			return in.Next()
		},
		close: in.Close,
	}, nil
}

func (s *skipStage) open(_ *runCtx, in Iterator) (Iterator, error) {
	skip := s.n
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			for skip > 0 {
				skip--
				d, err := in.Next()
				if err != nil || d == nil {
					return nil, err
				}
			}
			return in.Next()
		},
		close: in.Close,
	}, nil
}
