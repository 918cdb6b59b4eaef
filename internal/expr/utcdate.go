package expr

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// utcDatePart is $year, $month or $dayOfMonth without a timezone: the
// date's calendar fields in UTC, from the day's cache (Vars.utcDate). A
// stage that evaluates several of them on one date (a $project of year,
// month and day folded into a $group) can break the date down once:
// UTCDatePart and EvalUTCDate.
type utcDatePart struct {
	date Expr
	part int // 1 year, 2 month, 3 day
}

func (e *utcDatePart) Eval(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
	ymd, null, err := evalUTCDate(e.date, doc, vars)
	if err != nil {
		return Missing, err
	}
	if null {
		return Null, nil
	}
	return Int32(int32(ymd[e.part-1])), nil
}

// evalUTCDate evaluates date as $year, $month and $dayOfMonth do: its
// year, month and day in UTC; null when it is null or missing (the
// operators return null); their error when it is not a date.
func evalUTCDate(date Expr, doc bsoncore.Document, vars *Vars) (ymd [3]int, null bool, err error) {
	v, err := date.Eval(doc, vars)
	if err != nil {
		return ymd, false, err
	}
	if IsNullish(v) {
		return ymd, true, nil
	}
	var ms int64
	if v.Type == bsoncore.TypeDateTime && len(v.Data) >= 8 {
		ms = int64(binary.LittleEndian.Uint64(v.Data))
	} else if ms, err = toMillis("", v); err != nil {
		return ymd, false, err
	}
	ymd[0], ymd[1], ymd[2] = vars.utcDate(ms)
	return ymd, false, nil
}

// UTCDatePart reports whether e is $year, $month or $dayOfMonth with no
// timezone of a field path of the current document: the path (dotted)
// and the part it returns (0 year, 1 month, 2 day). Two such expressions
// with one path read the same date.
func UTCDatePart(e Expr) (path string, part int, ok bool) {
	d, ok := e.(*utcDatePart)
	if !ok {
		return "", 0, false
	}
	f, ok := d.date.(*fieldPathExpr)
	if !ok || f.kind != varCurrent || len(f.path) == 0 {
		return "", 0, false
	}
	path = f.path[0]
	for _, p := range f.path[1:] {
		path += "." + p
	}
	return path, d.part - 1, true
}

// EvalUTCDate evaluates the date of e, an expression UTCDatePart
// accepts: the year, month and day every such expression on the same
// path returns (as int32), null for all of them, or the error each of
// them fails with.
func EvalUTCDate(e Expr, doc bsoncore.Document, vars *Vars) (ymd [3]bsoncore.Value, err error) {
	n, null, err := evalUTCDate(e.(*utcDatePart).date, doc, vars)
	if err != nil {
		return ymd, err
	}
	if null {
		return [3]bsoncore.Value{Null, Null, Null}, nil
	}
	return [3]bsoncore.Value{Int32(int32(n[0])), Int32(int32(n[1])), Int32(int32(n[2]))}, nil
}
