package update

import (
	"fmt"
	"github.com/lodedb/lode/internal/collation"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// opParser validates one operator argument and builds its leaf.
type opParser func(path string, v bsoncore.Value) (leafOp, error)

var operators map[string]opParser

func init() {
	operators = map[string]opParser{
		"$set":         parseSet,
		"$setOnInsert": parseSetOnInsert,
		"$unset":       parseUnset,
		"$inc":         parseInc,
		"$mul":         parseMul,
		"$min":         parseMin,
		"$max":         parseMax,
		"$currentDate": parseCurrentDate,
		"$rename":      nil, // handled by Parse: it touches two paths
		"$push":        parsePush,
		"$addToSet":    parseAddToSet,
		"$pop":         parsePop,
		"$pull":        parsePull,
		"$pullAll":     parsePullAll,
		"$bit":         parseBit,
	}
}

// Parse validates an update specification and returns the parsed update.
// spec is an operator document (its first field name starts with $) or a
// replacement document. arrayFilters are the command's arrayFilters, each
// a query condition on one identifier used as $[<identifier>]. Errors are
// *errs.Error with mongod's codes and messages.
func Parse(spec bsoncore.Document, arrayFilters []bsoncore.Document) (*Update, error) {
	return ParseCollated(spec, arrayFilters, nil)
}

// ParseCollated is Parse under a collation (nil: simple): $min, $max,
// $addToSet, $pull, $pullAll, $push's $sort and the arrayFilters compare
// strings under it, as mongod applies an update's collation.
func ParseCollated(spec bsoncore.Document, arrayFilters []bsoncore.Document, coll *collation.Collator) (*Update, error) {
	elems, err := spec.Elements()
	if err != nil || !wellFormed(spec, 0) {
		return nil, errs.New(errs.InvalidBSON, "invalid BSON in update document")
	}
	for _, f := range arrayFilters {
		if !wellFormed(f, 0) {
			return nil, errs.New(errs.InvalidBSON, "invalid BSON in arrayFilters")
		}
	}
	if len(elems) == 0 || !strings.HasPrefix(elems[0].Key(), "$") {
		if err := validateReplacement(elems); err != nil {
			return nil, err
		}
		return &Update{replacement: spec}, nil
	}
	filters, err := parseArrayFilters(arrayFilters, coll)
	if err != nil {
		return nil, err
	}
	u := &Update{root: &node{}, filters: filters}
	used := map[string]bool{}
	for _, mod := range elems {
		name := mod.Key()
		p, known := operators[name]
		if !known {
			return nil, errs.New(errs.FailedToParse,
				"Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", name)
		}
		mv := mod.Value()
		if mv.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.FailedToParse,
				"Modifiers operate on fields but we found type %s instead. For example: {$mod: {<field>: ...}} not {%s}",
				bsonutil.TypeName(mv.Type), bsonutil.FormatElem(name, mv, msgStyle))
		}
		fields, err := mv.Document().Elements()
		if err != nil {
			return nil, errs.New(errs.InvalidBSON, "invalid update document: %v", err)
		}
		for _, f := range fields {
			if name == "$rename" {
				if err := u.parseRename(f); err != nil {
					return nil, err
				}
				continue
			}
			parts, positional, err := u.checkPath(f.Key(), used)
			if err != nil {
				return nil, err
			}
			leaf, err := p(f.Key(), f.Value())
			if err != nil {
				return nil, err
			}
			if cl, ok := leaf.(collatedOp); ok && coll != nil {
				if err := cl.collate(coll); err != nil {
					return nil, err
				}
			}
			if err := u.root.insert(parts, leaf, f.Key()); err != nil {
				return nil, err
			}
			u.positional = u.positional || positional
		}
	}
	for id := range filters {
		if !used[id] {
			return nil, errs.New(errs.FailedToParse,
				"The array filter for identifier '%s' was not used in the update %s", id, bsonutil.FormatDoc(spec, msgStyle))
		}
	}
	u.root.finish()
	return u, nil
}

// checkPath validates an update path as mongod's fieldchecker does and
// records the array filter identifiers it uses.
func (u *Update) checkPath(path string, used map[string]bool) ([]string, bool, error) {
	if path == "" {
		return nil, false, errs.New(errs.EmptyFieldName, "An empty update path is not valid.")
	}
	parts := strings.Split(path, ".")
	positional := 0
	for i, p := range parts {
		if p == "" {
			return nil, false, errs.New(errs.EmptyFieldName,
				"The update path '%s' contains an empty field name, which is not allowed.", path)
		}
		if p == "$" {
			if i == 0 {
				return nil, false, errs.New(errs.BadValue,
					"Cannot have positional (i.e. '$') element in the first position in path '%s'", path)
			}
			positional++
			continue
		}
		if isArrayComponent(p) {
			id := p[2 : len(p)-1]
			if id == "" {
				continue
			}
			if _, ok := u.filters[id]; !ok {
				return nil, false, errs.New(errs.BadValue,
					"No array filter found for identifier '%s' in path '%s'", id, path)
			}
			used[id] = true
		}
	}
	if positional > 1 {
		return nil, false, errs.New(errs.BadValue,
			"Too many positional (i.e. '$') elements found in path '%s'", path)
	}
	return parts, positional == 1, nil
}

// parseRename validates one $rename pair and adds its two paths.
func (u *Update) parseRename(f bsoncore.Element) error {
	from, v := f.Key(), f.Value()
	if v.Type != bsoncore.TypeString {
		return errs.New(errs.BadValue, "The 'to' field for $rename must be a string: %s", bsonutil.FormatElem(from, v, msgStyle))
	}
	to := v.StringValue()
	if strings.IndexByte(to, 0) >= 0 {
		return errs.New(errs.BadValue, "The 'to' field for $rename cannot contain an embedded null byte: %s", bsonutil.FormatElem(from, v, msgStyle))
	}
	for _, p := range []struct{ path, which string }{{from, "source"}, {to, "destination"}} {
		if p.path == "" {
			return errs.New(errs.EmptyFieldName, "An empty update path is not valid.")
		}
		for _, c := range strings.Split(p.path, ".") {
			if c == "" {
				return errs.New(errs.EmptyFieldName,
					"The update path '%s' contains an empty field name, which is not allowed.", p.path)
			}
			if c == "$" || isArrayComponent(c) {
				return errs.New(errs.BadValue, "The %s field for $rename may not be dynamic: %s", p.which, p.path)
			}
		}
	}
	if from == to || strings.HasPrefix(to, from+".") || strings.HasPrefix(from, to+".") {
		return errs.New(errs.BadValue,
			"The source and target field for $rename must not be on the same path: %s", bsonutil.FormatElem(from, v, msgStyle))
	}
	if err := u.root.insert(strings.Split(to, "."), &renameOp{from: strings.Split(from, "."), to: to}, to); err != nil {
		return err
	}
	return u.root.insert(strings.Split(from, "."), placeholderOp{}, from)
}

// validateReplacement checks a replacement document's top-level fields as
// mongod's storage validation does.
func validateReplacement(elems []bsoncore.Element) error {
	for _, e := range elems {
		if err := checkTopLevelField(e.Key(), e.Value()); err != nil {
			return err
		}
	}
	return nil
}

func checkTopLevelField(name string, v bsoncore.Value) error {
	if strings.HasPrefix(name, "$") {
		return dollarFieldError(name)
	}
	if name == "_id" {
		switch v.Type {
		case bsoncore.TypeArray, bsoncore.TypeRegex, bsoncore.TypeUndefined:
			return errs.New(errs.InvalidIdField, "The '_id' value cannot be of type %s", bsonutil.TypeName(v.Type))
		}
	}
	return nil
}

// String renders the update for logs and debugging.
func (u *Update) String() string {
	if u.IsReplacement() {
		return "replacement " + bsonutil.FormatDoc(u.replacement, msgStyle)
	}
	return fmt.Sprintf("operator update (positional=%v, %d array filters)", u.positional, len(u.filters))
}

// dollarFieldError is mongod's storage-validation error for a $-prefixed
// top-level field written by an update.
func dollarFieldError(name string) error {
	return errs.New(errs.DollarPrefixedFieldName,
		"The dollar ($) prefixed field '%s' in '%s' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.",
		name, name)
}
