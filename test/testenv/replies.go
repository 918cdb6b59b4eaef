package testenv

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// WantOK fails unless the command succeeded with ok: 1.0.
func WantOK(t testing.TB, r bson.Raw, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("command failed: %v", err)
	}
	if v, e := r.LookupErr("ok"); e != nil || v.Type != bson.TypeDouble || v.Double() != 1 {
		t.Fatalf("want ok: 1.0, got %v", r)
	}
}

// Field returns a field of r by dotted path, failing if it is missing.
func Field(t testing.TB, r bson.Raw, path string) bson.RawValue {
	t.Helper()
	v, err := r.LookupErr(strings.Split(path, ".")...)
	if err != nil {
		t.Fatalf("reply lacks %s: %v", path, r)
	}
	return v
}

// WantInt32 checks that the field at path is the int32 want.
func WantInt32(t testing.TB, r bson.Raw, path string, want int32) {
	t.Helper()
	v := Field(t, r, path)
	if got, ok := v.Int32OK(); !ok || got != want {
		t.Fatalf("%s = %v (%v), want int32 %d", path, v, v.Type, want)
	}
}

// WantAbsent checks that r has no top-level field name.
func WantAbsent(t testing.TB, r bson.Raw, name string) {
	t.Helper()
	if _, err := r.LookupErr(name); err == nil {
		t.Fatalf("reply must not have %s: %v", name, r)
	}
}

// FirstBatch returns a cursor reply's cursor.firstBatch.
func FirstBatch(t testing.TB, r bson.Raw) []bson.Raw {
	t.Helper()
	vals, err := Field(t, r, "cursor.firstBatch").Array().Values()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]bson.Raw, len(vals))
	for i, v := range vals {
		out[i] = v.Document()
	}
	return out
}
