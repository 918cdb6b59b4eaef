package engine

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// collectPath appends the values found at parts[i:] below doc to out, and
// the paths of the arrays it traversed to arrs: every value a query on the
// path sees, as distinct reports them (index keys are generated element by
// element instead, see internal/indexkey).
func collectPath(doc bsoncore.Document, parts []string, i int, out *[]bsoncore.Value, arrs *[]string) {
	v, err := doc.LookupErr(parts[i])
	if err != nil {
		return
	}
	walkValue(v, parts, i+1, out, arrs)
}

func walkValue(v bsoncore.Value, parts []string, i int, out *[]bsoncore.Value, arrs *[]string) {
	if i == len(parts) {
		if v.Type != bsoncore.TypeArray {
			*out = append(*out, v)
			return
		}
		addArrayPath(arrs, parts[:i])
		vals, _ := v.Array().Values()
		if len(vals) == 0 {
			*out = append(*out, undefinedValue)
			return
		}
		*out = append(*out, vals...)
		return
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		collectPath(v.Document(), parts, i, out, arrs)
	case bsoncore.TypeArray:
		addArrayPath(arrs, parts[:i])
		arr := v.Array()
		if n, err := strconv.Atoi(parts[i]); err == nil && n >= 0 {
			if e, err := arr.IndexErr(uint(n)); err == nil {
				walkValue(e, parts, i+1, out, arrs)
			}
			return
		}
		vals, _ := arr.Values()
		for _, e := range vals {
			if e.Type == bsoncore.TypeEmbeddedDocument {
				collectPath(e.Document(), parts, i, out, arrs)
			}
		}
	}
}

func addArrayPath(arrs *[]string, parts []string) {
	p := strings.Join(parts, ".")
	for _, a := range *arrs {
		if a == p {
			return
		}
	}
	*arrs = append(*arrs, p)
}

func subset(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

var (
	nullValue      = bsoncore.Value{Type: bsoncore.TypeNull}
	undefinedValue = bsoncore.Value{Type: bsoncore.TypeUndefined}
)
