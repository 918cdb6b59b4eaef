// Package advise_test is the acceptance test of `lode advise` (issue 21):
// each seed's workload runs with its indexes missing, the advisor must
// propose exactly the seed's indexes, and once they are built the same
// workload's keys and documents examined per result must match the
// advisor's prediction (within 20%, or within 1 per result when both are
// tiny).
package advise_test

import (
	"context"
	"math"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/advise"
	"github.com/lodedb/lode/test/testenv"
)

// statsKit is how a test reads the workload's shapes.
type statsKit struct {
	source advise.StatsSource
	// mark starts a new measurement; since returns the shapes recorded
	// after the last mark.
	mark  func(ctx context.Context) error
	since func(ctx context.Context) ([]*advise.Shape, error)
}

// recorderKit records through a command monitor and explains (works on
// any server).
func recorderKit(rec *advise.Recorder, client *mongo.Client) statsKit {
	src := rec.Source(client, 0)
	return statsKit{
		source: src,
		mark:   func(context.Context) error { rec.Reset(); return nil },
		since:  func(ctx context.Context) ([]*advise.Shape, error) { return parseAll(ctx, src) },
	}
}

// queryStatsKit reads $queryStats and measures by difference.
func queryStatsKit(client *mongo.Client) statsKit {
	src := advise.QueryStatsSource(client)
	var before map[string]*advise.Shape
	return statsKit{
		source: src,
		mark: func(ctx context.Context) error {
			shapes, err := parseAll(ctx, src)
			before = map[string]*advise.Shape{}
			for _, s := range shapes {
				before[s.Hash] = s
			}
			return err
		},
		since: func(ctx context.Context) ([]*advise.Shape, error) {
			shapes, err := parseAll(ctx, src)
			if err != nil {
				return nil, err
			}
			for _, s := range shapes {
				if b := before[s.Hash]; b != nil {
					s.ExecCount -= b.ExecCount
					s.KeysExamined -= b.KeysExamined
					s.DocsExamined -= b.DocsExamined
					s.DocsReturned -= b.DocsReturned
				}
			}
			return shapes, nil
		},
	}
}

func parseAll(ctx context.Context, src advise.StatsSource) ([]*advise.Shape, error) {
	docs, err := src(ctx)
	if err != nil {
		return nil, err
	}
	var out []*advise.Shape
	for _, d := range docs {
		s, err := advise.ParseShape(d)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// TestAdviseSeedsRecorded runs the acceptance with the explain-based
// Recorder as the statistics source.
func TestAdviseSeedsRecorded(t *testing.T) {
	for _, w := range workloads() {
		t.Run(w.name, func(t *testing.T) {
			rec := advise.NewRecorder()
			db, err := lode.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			client, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetMonitor(rec.Monitor()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { client.Disconnect(context.Background()) })
			// The recorder's explains double the work: a smaller data set.
			checkSeed(t, w, client, recorderKit(rec, client), testenv.Size(5000, 50000))
		})
	}
}

// TestAdviseSeedsQueryStats runs the acceptance on the server's own
// $queryStats.
func TestAdviseSeedsQueryStats(t *testing.T) {
	for _, w := range workloads() {
		t.Run(w.name, func(t *testing.T) {
			ldb, _ := testenv.Open(t)
			client := ldb.Client()
			if _, err := advise.QueryStatsSource(client)(testenv.Ctx(t)); err != nil {
				t.Fatalf("$queryStats: %v", err)
			}
			checkSeed(t, w, client, queryStatsKit(client), testenv.Size(20000, 200000))
		})
	}
}

// checkSeed is the acceptance of one seed.
func checkSeed(t *testing.T, w workload, client *mongo.Client, kit statsKit, n int) {
	ctx := testenv.Ctx(t)
	ops := testenv.Size(20, 100)
	if w.maxN > 0 && n > w.maxN {
		n = w.maxN
	}
	db := client.Database("seed")
	w.load(t, ctx, db, n)
	if err := kit.mark(ctx); err != nil {
		t.Fatal(err)
	}
	w.run(t, ctx, db, n, ops)
	rep, err := advise.Run(ctx, client, kit.source, advise.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Proposals {
		got = append(got, p.Key.String())
		if p.IndexBytes <= 0 {
			t.Errorf("proposal %s has no size estimate", p.Key)
		}
	}
	sort.Strings(got)
	want := append([]string(nil), w.want...)
	sort.Strings(want)
	if !equalStrings(got, want) {
		for _, r := range rep.Rows {
			t.Logf("row %s %s: plan %s, %.2f keys %.2f docs per result -> %v (%s)", r.NS, r.Shape, r.Plan, r.KeysPerResult, r.DocsPerResult, r.Index, r.Note)
		}
		t.Fatalf("proposals %q, want %q", got, want)
	}
	predicted := map[string]advise.Row{}
	for _, r := range rep.Rows {
		if r.Index != nil {
			predicted[r.Shape] = r
		}
	}
	built, err := advise.Apply(ctx, client, rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != len(want) {
		t.Fatalf("Apply built %v, want %d indexes", built, len(want))
	}
	if err := kit.mark(ctx); err != nil {
		t.Fatal(err)
	}
	w.run(t, ctx, db, n, ops)
	shapes, err := kit.since(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range shapes {
		p, ok := predicted[advise.CompactShape(s)]
		if !ok || s.ExecCount <= 0 {
			continue
		}
		checked++
		mk, md := s.KeysPerResult(), s.DocsPerResult()
		t.Logf("%s %s: predicted %.2f keys %.2f docs per result with %s (was %.2f/%.2f); measured %.2f/%.2f (%s)",
			w.name, p.Shape, p.PredictedKeysPerResult, p.PredictedDocsPerResult, p.Index, p.KeysPerResult, p.DocsPerResult, mk, md, s.LastPlanSummary)
		if !close(p.PredictedKeysPerResult, mk) || !close(p.PredictedDocsPerResult, md) ||
			(mk > 0) != (p.PredictedKeysPerResult > 0) || (md > 0) != (p.PredictedDocsPerResult > 0) {
			t.Errorf("%s: predicted %.2f keys and %.2f docs per result, measured %.2f and %.2f", p.Shape,
				p.PredictedKeysPerResult, p.PredictedDocsPerResult, mk, md)
		}
		if mk+md >= p.KeysPerResult+p.DocsPerResult {
			t.Errorf("%s: %.2f keys+docs per result with the index, %.2f without", p.Shape, mk+md, p.KeysPerResult+p.DocsPerResult)
		}
	}
	if checked != len(predicted) {
		t.Errorf("measured %d of the %d shapes with a prediction", checked, len(predicted))
	}
}

// close reports whether a prediction is within 20% of the measure, or
// within 1 per result (checkSeed also wants both zero or both not).
func close(pred, meas float64) bool {
	d := math.Abs(pred - meas)
	return d <= 1 || d <= 0.2*math.Abs(meas)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
