package engine

import (
	"bytes"
	"github.com/lodedb/lode/internal/bsonutil"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"sort"

	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
)

// resolveIndexCollation turns a createIndexes collation into what the
// index stores: nil (absent) inherits the collection's default,
// {locale: "simple"} is the simple collation (nil), and any other spec
// its normalised form.
func resolveIndexCollation(c *collection, raw bsoncore.Document) (bsoncore.Document, error) {
	if raw == nil {
		if c.Collator != nil {
			return c.Collator.Spec().Document(), nil
		}
		return nil, nil
	}
	s, err := collation.Parse(raw)
	if err != nil || s == nil {
		return nil, err
	}
	return s.Document(), nil
}

// collationSupported refuses a non-simple collation (given or inherited
// from the collection's default) on a text or 2d index, as mongod does:
// only btree, 2dsphere, hashed and wildcard indexes compare strings under
// a collation, so a text index on a collection with a default collation
// must say {locale: "simple"}.
func collationSupported(spec IndexSpec) error {
	if spec.Collation == nil {
		return nil
	}
	elems, _ := spec.Key.Elements()
	for _, e := range elems {
		v := e.Value()
		if v.Type != bsoncore.TypeString {
			continue
		}
		switch typ := v.StringValue(); typ {
		case "text", "2d":
			return errs.New(errs.CannotCreateIndex, "Index type '%s' does not support collation: %s", typ, bsonutil.FormatDoc(spec.Collation, msgStyle))
		}
	}
	return nil
}

// queryCollator is the collation a statement runs under: its own when it
// gives one ({locale: "simple"} included), else the collection's default
// (c may be nil: a missing collection has none).
func queryCollator(c *collection, raw bsoncore.Document) (*collation.Collator, error) {
	if raw == nil {
		if c != nil {
			return c.Collator, nil
		}
		return nil, nil
	}
	if bytes.Equal(raw, simpleDoc) {
		return nil, nil // what pipelines pass their sub-queries: no parse
	}
	s, err := collation.Parse(raw)
	if err != nil {
		return nil, err
	}
	return collation.New(s), nil
}

// collationDoc renders a collator's spec for explain (nil when simple).
func collationDoc(coll *collation.Collator) bsoncore.Document {
	if coll == nil {
		return nil
	}
	return coll.Spec().Document()
}

// statementCollator resolves a statement's collation against db.coll's
// default (see queryCollator).
func (e *Engine) statementCollator(db, coll string, raw bsoncore.Document) (*collation.Collator, error) {
	return queryCollator(e.cat.Load().lookup(db, coll), raw)
}

// distinctCollated sorts and deduplicates distinct values under coll,
// keeping the first value met of each class of equal ones.
func distinctCollated(vals []bsoncore.Value, coll *collation.Collator) []bsoncore.Value {
	keys := make([]bsoncore.Value, len(vals))
	idx := make([]int, len(vals))
	for i, v := range vals {
		keys[i], idx[i] = coll.Transform(v), i
	}
	sort.SliceStable(idx, func(a, b int) bool { return bsonutil.Compare(keys[idx[a]], keys[idx[b]]) < 0 })
	out := make([]bsoncore.Value, 0, len(vals))
	for n, i := range idx {
		if n == 0 || bsonutil.Compare(keys[i], keys[idx[n-1]]) != 0 {
			out = append(out, vals[i])
		}
	}
	return out
}

// StatementCollator resolves a command's collation document against
// db.coll's default collation: nil raw means the collection's default,
// and {locale: "simple"} the simple collation (a nil collator).
func (e *Engine) StatementCollator(db, coll string, raw bsoncore.Document) (*collation.Collator, error) {
	return e.statementCollator(db, coll, raw)
}

// simpleDoc is {locale: "simple"}.
var simpleDoc = bsoncore.NewDocumentBuilder().AppendString("locale", "simple").Build()

// collectionCollation is c's default collation as an index stores it (nil
// for the simple collation).
func collectionCollation(c *collection) bsoncore.Document {
	if c.Collator != nil {
		return c.Collator.Spec().Document()
	}
	return nil
}
