package update

import (
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/query"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// Matcher is a compiled query condition. *query.Filter satisfies it.
type Matcher interface {
	Match(doc bsoncore.Document) bool
}

// matchElem matches an array element against a filter by wrapping it into
// {<identifier>: element}, which is how mongod evaluates array filters.
func matchWrapped(m Matcher, name string, v bsoncore.Value) bool {
	doc := bsoncore.BuildDocument(nil, bsoncore.AppendValueElement(nil, name, v))
	return m.Match(doc)
}

// parseArrayFilters checks each filter's single top-level identifier and
// compiles it.
func parseArrayFilters(filters []bsoncore.Document, coll *collation.Collator) (map[string]Matcher, error) {
	out := map[string]Matcher{}
	for _, f := range filters {
		// mongod parses the filter first (its banned operators and
		// unknown ones are errors of their own), then reads its
		// identifier.
		if err := query.RefuseSpecial(f); err != nil {
			return nil, err
		}
		m, err := compileFilterColl(f, coll)
		if err != nil {
			return nil, err
		}
		id, err := filterIdentifier(f)
		if err != nil {
			return nil, err
		}
		if _, dup := out[id]; dup {
			return nil, errs.New(errs.FailedToParse,
				"Found multiple array filters with the same top-level field name %s", id)
		}
		out[id] = m
	}
	return out, nil
}

// filterIdentifier returns the identifier every top-level path of an array
// filter starts with.
func filterIdentifier(f bsoncore.Document) (string, error) {
	var ids []string
	if err := collectIdentifiers(f, &ids); err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", errs.New(errs.FailedToParse,
			"Cannot use an expression without a top-level field name in arrayFilters")
	}
	id := ids[0]
	for _, o := range ids[1:] {
		if o != id {
			return "", errs.New(errs.FailedToParse,
				"Error parsing array filter :: caused by :: Expected a single top-level field name, found '%s' and '%s'", id, o)
		}
	}
	if !validIdentifier(id) {
		return "", errs.New(errs.BadValue,
			"Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '%s'", id)
	}
	return id, nil
}

func collectIdentifiers(f bsoncore.Document, ids *[]string) error {
	elems, err := f.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid array filter: %v", err)
	}
	for _, e := range elems {
		k := e.Key()
		switch k {
		case "$and", "$or", "$nor":
			arr, ok := e.Value().ArrayOK()
			if !ok {
				continue // the filter parser reports it
			}
			vals, _ := arr.Values()
			for _, v := range vals {
				if d, ok := v.DocumentOK(); ok {
					if err := collectIdentifiers(d, ids); err != nil {
						return err
					}
				}
			}
			continue
		}
		if strings.HasPrefix(k, "$") {
			continue
		}
		id, _, _ := strings.Cut(k, ".")
		*ids = append(*ids, id)
	}
	return nil
}

func validIdentifier(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
