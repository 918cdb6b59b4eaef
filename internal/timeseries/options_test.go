package timeseries

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func TestParseStoredRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		spec   bsoncore.Document
		stored string
	}{
		{bsoncore.NewDocumentBuilder().AppendString("timeField", "t").Build(),
			`{"timeField": "t","granularity": "seconds","bucketMaxSpanSeconds": {"$numberInt":"3600"}}`},
		{bsoncore.NewDocumentBuilder().AppendString("timeField", "t").AppendString("metaField", "m").AppendString("granularity", "minutes").Build(),
			`{"timeField": "t","metaField": "m","granularity": "minutes","bucketMaxSpanSeconds": {"$numberInt":"86400"}}`},
		{bsoncore.NewDocumentBuilder().AppendString("timeField", "t").AppendDouble("bucketMaxSpanSeconds", 600).AppendInt64("bucketRoundingSeconds", 600).Build(),
			`{"timeField": "t","bucketRoundingSeconds": {"$numberInt":"600"},"bucketMaxSpanSeconds": {"$numberInt":"600"}}`},
	} {
		o, err := Parse("create", "db.c", tc.spec)
		if err != nil {
			t.Fatalf("%v: %v", tc.spec, err)
		}
		if got := o.Document().String(); got != tc.stored {
			t.Fatalf("stored %s, want %s", got, tc.stored)
		}
		back := FromStored(o.Document())
		if back == nil || *back != *o {
			t.Fatalf("FromStored %+v, want %+v", back, o)
		}
	}
	if _, err := Parse("create", "db.c", bsoncore.NewDocumentBuilder().AppendString("timeField", "t").AppendDouble("bucketMaxSpanSeconds", 1.5).AppendInt32("bucketRoundingSeconds", 1).Build()); errs.As(err) == nil || errs.As(err).Code != errs.BadValue {
		t.Fatalf("a fractional span: %v", err)
	}
}

func TestGranularityTransitions(t *testing.T) {
	o, _ := Parse("create", "db.c", bsoncore.NewDocumentBuilder().AppendString("timeField", "t").Build())
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"seconds", "minutes", true}, {"seconds", "hours", true}, {"minutes", "hours", true},
		{"minutes", "seconds", false}, {"hours", "minutes", false}, {"hours", "hours", true},
	} {
		cur, _, _ := o.WithGranularity(tc.from)
		n, _, err := cur.WithGranularity(tc.to)
		if (err == nil) != tc.ok {
			t.Fatalf("%s -> %s: %v", tc.from, tc.to, err)
		}
		if err == nil {
			span, round, _ := granularityParams(tc.to)
			if n.MaxSpan != span || n.Rounding != round {
				t.Fatalf("%s -> %s: %+v", tc.from, tc.to, n)
			}
		}
	}
	// Custom parameters: a granularity whose parameters are not lower.
	c := &Options{TimeField: "t", MaxSpan: 7200, Rounding: 7200}
	if _, _, err := c.WithGranularity("minutes"); err == nil {
		t.Fatal("custom 7200 -> minutes (rounding 3600) accepted")
	}
	if n, changed, err := c.WithGranularity("hours"); err != nil || !changed || n.Granularity != "hours" {
		t.Fatalf("custom 7200 -> hours: %+v %v", n, err)
	}
}
