package agg

import (
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// collatedStages are the stages that honour a non-simple collation:
// $match, $sort and $group's keys compare strings under it, and the
// others compare no strings (expressions and accumulators are checked by
// comparesInExpr).
var collatedStages = map[string]bool{
	"$match": true, "$sort": true, "$limit": true, "$skip": true, "$count": true,
	"$project": true, "$addFields": true, "$set": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true, "$unwind": true, "$group": true,
	"$sortByCount": true, "$sample": true,
}

// comparingOps are the expression operators whose result depends on how
// strings compare, which Lode evaluates with the simple collation only.
var comparingOps = map[string]bool{
	"$eq": true, "$ne": true, "$gt": true, "$gte": true, "$lt": true, "$lte": true,
	"$cmp": true, "$in": true, "$indexOfArray": true, "$setUnion": true,
	"$setIntersection": true, "$setDifference": true, "$setEquals": true,
	"$setIsSubset": true, "$min": true, "$max": true, "$sortArray": true,
	"$minN": true, "$maxN": true, "$expr": true, "$filter": true,
	"$addToSet": true, "$top": true, "$bottom": true, "$topN": true, "$bottomN": true,
}

// CheckCollated refuses, with NotImplemented, a pipeline that a
// non-simple collation would reach where Lode does not apply it: a stage
// outside collatedStages, or an expression operator that compares.
func CheckCollated(stages []bsoncore.Document) error {
	for _, st := range stages {
		elems, err := st.Elements()
		if err != nil || len(elems) == 0 {
			continue
		}
		name := elems[0].Key()
		if name == "$lookup" {
			// Its foreignField equality runs as a query under the
			// pipeline's collation; a sub-pipeline must pass the same
			// checks.
			if err := checkCollatedLookup(elems[0].Value()); err != nil {
				return err
			}
			continue
		}
		if !collatedStages[name] {
			return errs.New(errs.NotImplemented, "%s under a non-simple collation is not supported by Lode: it would compare strings by their binary value", name)
		}
		if name == "$match" {
			if matchHasExpr(elems[0].Value()) {
				return errs.New(errs.NotImplemented, "$expr under a non-simple collation is not supported by Lode: aggregation expressions compare strings by their binary value")
			}
			continue // query operators compare under the collation
		}
		if op := comparesInExpr(elems[0].Value()); op != "" {
			return errs.New(errs.NotImplemented, "the expression operator %s under a non-simple collation is not supported by Lode: it would compare strings by their binary value", op)
		}
	}
	return nil
}

// comparesInExpr returns the first comparing operator in v, or "".
func comparesInExpr(v bsoncore.Value) string {
	var d bsoncore.Document
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		d = v.Document()
	case bsoncore.TypeArray:
		d = bsoncore.Document(v.Array())
	default:
		return ""
	}
	elems, _ := d.Elements()
	for _, e := range elems {
		if v.Type == bsoncore.TypeEmbeddedDocument && comparingOps[e.Key()] {
			return e.Key()
		}
		if op := comparesInExpr(e.Value()); op != "" {
			return op
		}
	}
	return ""
}

// matchHasExpr reports whether a $match filter holds $expr at any depth.
func matchHasExpr(v bsoncore.Value) bool {
	var d bsoncore.Document
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		d = v.Document()
	case bsoncore.TypeArray:
		d = bsoncore.Document(v.Array())
	default:
		return false
	}
	elems, _ := d.Elements()
	for _, e := range elems {
		if e.Key() == "$expr" || matchHasExpr(e.Value()) {
			return true
		}
	}
	return false
}

// checkCollatedLookup applies CheckCollated to a $lookup's sub-pipeline
// and refuses comparing operators in its let.
func checkCollatedLookup(v bsoncore.Value) error {
	d, ok := v.DocumentOK()
	if !ok {
		return nil // the stage's parser reports it
	}
	if let, err := d.LookupErr("let"); err == nil {
		if op := comparesInExpr(let); op != "" {
			return errs.New(errs.NotImplemented, "the expression operator %s under a non-simple collation is not supported by Lode: it would compare strings by their binary value", op)
		}
	}
	pv, err := d.LookupErr("pipeline")
	if err != nil {
		return nil
	}
	arr, ok := pv.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	stages := make([]bsoncore.Document, 0, len(vals))
	for _, x := range vals {
		if sd, ok := x.DocumentOK(); ok {
			stages = append(stages, sd)
		}
	}
	return CheckCollated(stages)
}
