package bsonutil

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// DefaultIndexName returns MongoDB's default name for a key pattern:
// field_direction pairs joined by underscores, such as "a_1_b_-1".
func DefaultIndexName(key bsoncore.Document) string {
	elems, _ := key.Elements()
	parts := make([]string, 0, 2*len(elems))
	for _, e := range elems {
		v := e.Value()
		var s string
		switch {
		case v.Type == bsoncore.TypeString:
			s = v.StringValue()
		case IsNumber(v.Type):
			f := AsFloat64(v)
			if f == float64(int64(f)) {
				s = fmt.Sprint(int64(f))
			} else {
				s = fmt.Sprint(f)
			}
		default:
			s = v.String()
		}
		parts = append(parts, e.Key(), s)
	}
	return strings.Join(parts, "_")
}
