package engine

import (
	"bytes"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/storage"
)

// rangeCovers reports whether every document of c in r matches filter,
// known from an index without reading the documents, so that a
// partitioned scan need not test each one: filter is a date range on one
// top-level field, {f: {$gte or $gt: date, $lt or $lte: date}}, and an
// index led by f ascending (neither sparse nor partial, not text, geo or
// hashed) has its smallest and largest keys inside the range. Such an index has
// at least one key for every document (a missing field is indexed as
// null), its keys follow MongoDB's value order, and dates fill one
// stretch of that order; so when the two extreme keys are dates in the
// range, every key of every document is: each document matches (an
// array field's elements all do, so one of them meets each bound). An
// index with no entries in r (dropped since c was read) tells nothing.
func rangeCovers(r storage.Reader, c *collection, filter bsoncore.Document) bool {
	path, lo, hi, loStrict, hiStrict, ok := dateRange(filter)
	if !ok {
		return false
	}
	for _, ix := range c.Indexes {
		if len(ix.Fields) == 0 || ix.Sparse || ix.Partial != nil || ix.Text != nil || ix.Geo2D != nil {
			continue
		}
		f0 := ix.Fields[0]
		if f0.Path != path || f0.Desc || f0.Text || f0.Geo != "" || f0.Hashed {
			continue
		}
		first, ok := extremeKey(r, ix.ID, false)
		if !ok {
			continue
		}
		last, ok := extremeKey(r, ix.ID, true)
		if !ok {
			continue
		}
		klo := keystring.AppendValue(nil, lo, false)
		khi := keystring.AppendValue(nil, hi, false)
		// A key starts with a bound's keystring exactly when its first
		// field equals the bound (keystrings are prefix-free).
		above := bytes.Compare(first, klo) >= 0 && !(loStrict && bytes.HasPrefix(first, klo))
		below := bytes.Compare(last, khi) < 0 || !hiStrict && bytes.HasPrefix(last, khi)
		return above && below
	}
	return false
}

// extremeKey returns the first (or, with last, the last) keystring of an
// index in r, or false when it has none or cannot be read.
func extremeKey(r storage.Reader, indexID uint64, last bool) ([]byte, bool) {
	cur, err := storage.NewIndexCursor(r, indexID, nil, nil, last)
	if err != nil {
		return nil, false
	}
	defer cur.Close()
	ks, _, _, ok := cur.Next()
	if !ok {
		return nil, false
	}
	return append([]byte(nil), ks...), true
}

// dateRange recognises {f: {$gte or $gt: date, $lt or $lte: date}} on a
// top-level field f, in either order of its two bounds.
func dateRange(filter bsoncore.Document) (path string, lo, hi bsoncore.Value, loStrict, hiStrict, ok bool) {
	elems, err := filter.Elements()
	if err != nil || len(elems) != 1 {
		return
	}
	path = elems[0].Key()
	if path == "" || strings.HasPrefix(path, "$") || strings.Contains(path, ".") {
		return
	}
	ops, isDoc := elems[0].Value().DocumentOK()
	if !isDoc {
		return
	}
	oels, err := ops.Elements()
	if err != nil || len(oels) != 2 {
		return
	}
	var haveLo, haveHi bool
	for _, o := range oels {
		v := o.Value()
		if v.Type != bsoncore.TypeDateTime {
			return
		}
		switch o.Key() {
		case "$gte", "$gt":
			if haveLo {
				return
			}
			haveLo, lo, loStrict = true, v, o.Key() == "$gt"
		case "$lt", "$lte":
			if haveHi {
				return
			}
			haveHi, hi, hiStrict = true, v, o.Key() == "$lt"
		default:
			return
		}
	}
	ok = haveLo && haveHi
	return
}
