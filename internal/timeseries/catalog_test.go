package timeseries

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/oplog"
)

func measurement(t *testing.T, o *Options, kv ...any) Measurement {
	t.Helper()
	b := bsoncore.NewDocumentBuilder()
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case int:
			b.AppendInt32(k, int32(v))
		case float64:
			b.AppendDouble(k, v)
		case string:
			b.AppendString(k, v)
		case int64: // a date
			b.AppendDateTime(k, v)
		case bsoncore.Document:
			b.AppendDocument(k, v)
		}
	}
	m, err := Read(o, b.Build())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUpdateDiff: the oplog delta a bucket gives for what it appended
// turns the version last written into the new one, as a secondary or a
// change stream applies it.
func TestUpdateDiff(t *testing.T) {
	o := &Options{TimeField: "t", MetaField: "m", Granularity: "seconds", MaxSpan: 3600, Rounding: 60}
	c := NewCatalog()
	const base = int64(1_700_000_000_000)
	b, _ := c.Add(o, measurement(t, o, "_id", 1, "t", base, "m", "a", "x", 5), nil)
	b, _ = c.Add(o, measurement(t, o, "_id", 2, "t", base+1000, "m", "a", "x", 3), nil)
	prev := b.Document(nil)
	b.MarkWritten(prev, 1)
	// New values, a new field, a new minimum and maximum time.
	b, _ = c.Add(o, measurement(t, o, "_id", 3, "t", base+5000, "m", "a", "x", 9, "y", "new"), nil)
	b, _ = c.Add(o, measurement(t, o, "_id", 4, "t", base+2000, "m", "a", "y", "a"), nil)
	next := b.Document(nil)
	diff := b.UpdateDiff()
	got, err := oplog.ApplyDiff(prev, diff.Lookup("diff").Document())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, next) {
		t.Fatalf("applied diff:\n%v\nwant\n%v\ndiff %v", bsoncore.Document(got), next, diff)
	}
	if b.Count != 4 || next.Lookup("control", "min", "x").Int32() != 3 || next.Lookup("control", "max", "y").StringValue() != "new" {
		t.Fatalf("bucket %v", next)
	}
}

// TestMetaNormalised: meta documents equal but for their field order go
// into one bucket, stored with the fields sorted.
func TestMetaNormalised(t *testing.T) {
	o := &Options{TimeField: "t", MetaField: "m", Granularity: "seconds", MaxSpan: 3600, Rounding: 60}
	c := NewCatalog()
	m1 := bsoncore.NewDocumentBuilder().AppendInt32("b", 1).AppendInt32("a", 2).Build()
	m2 := bsoncore.NewDocumentBuilder().AppendInt32("a", 2).AppendInt32("b", 1).Build()
	b1, _ := c.Add(o, measurement(t, o, "t", int64(0), "m", m1), nil)
	b2, _ := c.Add(o, measurement(t, o, "t", int64(1000), "m", m2), nil)
	if b1 != b2 {
		t.Fatal("two buckets for one meta value")
	}
	if got := b1.Document(nil).Lookup("meta").Document().String(); got != `{"a": {"$numberInt":"2"},"b": {"$numberInt":"1"}}` {
		t.Fatalf("meta %s", got)
	}
}

// TestRoundDown: bucket starts as mongod rounds them.
func TestRoundDown(t *testing.T) {
	for _, tc := range []struct {
		rounding, ms, want int64
	}{
		{60, 125_500, 120_000},
		{3600, 7_199_999, 3_600_000},
		{86400, 86_399_000, 0},
		{60, -61_000, -60_000}, // towards zero, as mongod's C++ division
	} {
		o := &Options{Rounding: tc.rounding}
		if got := o.RoundDown(tc.ms); got != tc.want {
			t.Errorf("RoundDown(%d) with %d: %d, want %d", tc.ms, tc.rounding, got, tc.want)
		}
	}
}

// TestRolloverAndForget: the count limit closes a bucket, a measurement
// back in time opens another and archives the open one, which takes a
// later measurement again; Forget drops a bucket from its series.
func TestRolloverAndForget(t *testing.T) {
	o := &Options{TimeField: "t", Granularity: "seconds", MaxSpan: 3600, Rounding: 60}
	c := NewCatalog()
	c.MaxCount = 3
	const base = int64(1_700_000_000_000)
	var closed []*Bucket
	var first *Bucket
	for i := 0; i < 4; i++ {
		var b *Bucket
		b, closed = c.Add(o, measurement(t, o, "t", base+int64(i)*1000), closed)
		if i == 0 {
			first = b
		}
	}
	if len(closed) != 1 || closed[0] != first || first.Count != 3 {
		t.Fatalf("closed %v", closed)
	}
	open, _ := c.Add(o, measurement(t, o, "t", base+5000), nil)
	back, _ := c.Add(o, measurement(t, o, "t", base-7_200_000), nil)
	if back == open {
		t.Fatal("a measurement two hours back went into the open bucket")
	}
	again, _ := c.Add(o, measurement(t, o, "t", base+6000), nil)
	if again != open || c.Stats.Reopened.Load() != 1 {
		t.Fatalf("the archived bucket did not take its measurement back")
	}
	c.Forget(open.ID)
	next, _ := c.Add(o, measurement(t, o, "t", base+7000), nil)
	if next == open {
		t.Fatal("a forgotten bucket took a measurement")
	}
}
