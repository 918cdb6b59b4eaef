package query

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// SortField is one key of a sort specification.
type SortField struct {
	// Path is the dotted field path.
	Path string
	// Desc is set for a descending (-1) key.
	Desc bool
	// Meta is "textScore" for a {$meta: "textScore"} key (sorted by the
	// text score, descending), empty for a path.
	Meta  string
	parts []string
}

// Sort is a parsed sort specification.
type Sort struct {
	// Fields are the sort keys in order. It is empty for {$natural: ±1}.
	Fields  []SortField
	natural int
	coll    *collation.Collator
}

// Collated returns a copy of s that orders strings under coll (nil: the
// simple collation): its keys (Key) hold sort keys in place of strings.
func (s *Sort) Collated(coll *collation.Collator) *Sort {
	if s == nil || coll == nil {
		return s
	}
	c := *s
	c.coll = coll
	return &c
}

// Collator is the sort's collation (nil: simple).
func (s *Sort) Collator() *collation.Collator {
	if s == nil {
		return nil
	}
	return s.coll
}

// SortKey is the sort key of one document: one value per sort field.
type SortKey []bsoncore.Value

// ParseSort parses a sort specification such as {a: 1, "b.c": -1}. A
// {$natural: 1} or {$natural: -1} specification is reported by Natural.
func ParseSort(spec bsoncore.Document) (*Sort, error) {
	if err := validateDoc(spec); err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid sort document: %v", err)
	}
	elems, err := spec.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid sort document: %v", err)
	}
	s := &Sort{}
	seen := map[string]bool{}
	for _, e := range elems {
		key, v := e.Key(), e.Value()
		if v.Type == bsoncore.TypeEmbeddedDocument {
			if k, _, ok := firstKey(v); ok && k == "$meta" {
				f, err := parseMetaSort(key, v)
				if err != nil {
					return nil, err
				}
				if !seen[key] {
					seen[key] = true
					s.Fields = append(s.Fields, f)
				}
				continue
			}
			return nil, errs.New(errs.Location15974, "Illegal key in $sort specification: %s", bsonutil.FormatElem(key, v, msgStyle))
		}
		dir, ok := sortDirection(v)
		if !ok {
			return nil, errs.New(errs.Location15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
		}
		if key == "$natural" {
			s.natural = dir
			continue
		}
		if key == "" {
			return nil, errs.New(errs.Location40352, "FieldPath cannot be constructed with empty string")
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		s.Fields = append(s.Fields, SortField{Path: key, Desc: dir < 0, parts: splitPath(key)})
	}
	if s.natural != 0 && len(s.Fields) > 0 {
		return nil, errs.New(errs.BadValue, "$natural sort cannot be combined with other sort keys")
	}
	return s, nil
}

func sortDirection(v bsoncore.Value) (int, bool) {
	if !isNumber(v) {
		return 0, false
	}
	f := bsonutilFloat(v)
	switch f {
	case 1:
		return 1, true
	case -1:
		return -1, true
	}
	return 0, false
}

// Natural reports whether the sort is {$natural: dir} and its direction
// (1 forward, -1 backward).
func (s *Sort) Natural() (dir int, ok bool) { return s.natural, s.natural != 0 }

// Empty reports whether the sort imposes no order on field values (no
// fields, or $natural).
func (s *Sort) Empty() bool { return len(s.Fields) == 0 }

var (
	nullValue      = bsoncore.Value{Type: bsoncore.TypeNull}
	undefinedValue = bsoncore.Value{Type: bsoncore.TypeUndefined}
)

// sortCollector gathers the extreme value a path yields.
type sortCollector struct {
	coll  *collation.Collator
	desc  bool
	best  bsoncore.Value
	found bool
}

func (c *sortCollector) offer(v bsoncore.Value) {
	if c.coll != nil {
		v = c.coll.Transform(v)
	}
	if !c.found {
		c.best, c.found = v, true
		return
	}
	r := bsonutil.Compare(v, c.best)
	if (c.desc && r > 0) || (!c.desc && r < 0) {
		c.best = v
	}
}

func (c *sortCollector) matchValue(v bsoncore.Value, _ *int) bool {
	switch v.Type {
	case 0:
		c.offer(nullValue)
	case bsoncore.TypeArray:
		it := newElemIter(v.Data)
		n := 0
		for {
			_, e, ok := it.next()
			if !ok {
				break
			}
			n++
			c.offer(e)
		}
		if n == 0 {
			c.offer(undefinedValue)
		}
	default:
		c.offer(v)
	}
	return false
}

// Key extracts a document's sort key once, so that a blocking sort does not
// walk documents on every comparison. Following MongoDB, an array sorts by
// its smallest element ascending and its largest descending, an empty
// array sorts before null, and a missing field sorts as null.
func (s *Sort) Key(doc bsoncore.Document) SortKey {
	key := make(SortKey, len(s.Fields))
	for i := range s.Fields {
		f := &s.Fields[i]
		if f.Meta != "" {
			key[i] = nullValue
			if v, err := doc.LookupErr(HiddenTextScore); err == nil {
				key[i] = v
			}
			continue
		}
		c := sortCollector{desc: f.Desc, coll: s.coll}
		walkPath(doc, f.parts, false, &c, nil, -1)
		if !c.found {
			c.best = nullValue
		}
		key[i] = c.best
	}
	return key
}

// CompareKeys compares two sort keys from Key: negative when a sorts first.
func (s *Sort) CompareKeys(a, b SortKey) int {
	for i := range s.Fields {
		c := bsonutil.Compare(a[i], b[i])
		if c != 0 {
			if s.Fields[i].Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// Compare compares two documents in sort order: negative when a sorts
// first, zero when their keys tie.
func (s *Sort) Compare(a, b bsoncore.Document) int {
	return s.CompareKeys(s.Key(a), s.Key(b))
}
