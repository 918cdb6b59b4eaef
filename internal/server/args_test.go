package server

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// onlyGenericArgs skips its walk when the dispatcher's scan found nothing
// but its own arguments and the passed ones: that is sound only while
// each of them is a generic argument that refusedGenericArg accepts with
// any value.
func TestGenArgsAreGenericAndAccepted(t *testing.T) {
	values := []bsoncore.Value{
		{Type: bsoncore.TypeBoolean, Data: []byte{0}},
		{Type: bsoncore.TypeBoolean, Data: []byte{1}},
		{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, 7)},
		{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, "x")},
	}
	for _, name := range append(genArgNames[:], passedGenArgs...) {
		if k, ok := genericArgNames[name]; !ok || k != name {
			t.Errorf("%s is not a generic argument", name)
		}
		for _, v := range values {
			if err := refusedGenericArg("ping", name, v); err != nil {
				t.Errorf("%s refused with %v: %v", name, v, err)
			}
		}
	}
}
