package advise

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Options select what Run looks at.
type Options struct {
	// DB and Coll restrict the advice to one database or collection
	// ("" for all).
	DB, Coll string
	// Logger receives progress at debug level (nil: slog.Default()).
	Logger *slog.Logger
	// A shape gets an index proposed only when it ran at least MinRuns
	// times, or at least MinShareRuns times and took at least MinShare
	// (a fraction) of the execution time of the shapes in scope. Zero
	// values set no bound (lode advise's defaults are
	// DefaultMinRuns, DefaultMinShareRuns and DefaultMinShare).
	MinRuns, MinShareRuns int64
	MinShare              float64
	// MinObserved is the running time over which an index must have been
	// observed unused before the report calls it unused (lode advise's
	// default is DefaultMinObserved); an index observed for less gets no
	// verdict and is listed as such.
	MinObserved time.Duration
	// Now is the time the observation windows end (zero: time.Now()).
	Now time.Time
}

// lode advise's default thresholds.
const (
	DefaultMinRuns      = 100
	DefaultMinShareRuns = 10
	DefaultMinShare     = 0.05
	DefaultMinObserved  = 7 * 24 * time.Hour
)

// Thresholds are the bounds the report applied.
type Thresholds struct {
	MinRuns      int64   `json:"minRuns"`
	MinShareRuns int64   `json:"minShareRuns"`
	MinShare     float64 `json:"minTimeShare"`
	// MinObserved is in milliseconds.
	MinObservedMillis int64 `json:"minObservedMillis"`
}

// Thresholds of the analysis.
const (
	// wellServed is the keys and documents examined per result at or
	// below which a shape needs no index.
	wellServed = 1.5
	// minGain is the share of today's work per result a proposal must
	// stay under to be proposed.
	minGain = 0.9
)

// Row is one shape of the report.
type Row struct {
	NS        string `json:"ns"`
	Command   string `json:"command"`
	Shape     string `json:"shape"`
	Hash      string `json:"queryShapeHash,omitempty"`
	ExecCount int64  `json:"execCount"`
	// TimeShare is the shape's share of the execution time of the
	// shapes in scope (0 to 1).
	TimeShare float64 `json:"timeShare"`
	// Plan and the figures per result are today's, from the statistics.
	Plan          string  `json:"plan"`
	KeysPerResult float64 `json:"keysExaminedPerResult"`
	DocsPerResult float64 `json:"docsExaminedPerResult"`
	// Index is the proposed index serving the shape (nil: none, see Note).
	Index Key `json:"proposedIndex,omitempty"`
	// The predicted figures with the proposed index.
	PredictedPlan          string  `json:"predictedPlan,omitempty"`
	PredictedKeysPerResult float64 `json:"predictedKeysExaminedPerResult"`
	PredictedDocsPerResult float64 `json:"predictedDocsExaminedPerResult"`
	IndexBytes             int64   `json:"estimatedIndexBytes,omitempty"`
	// SampledDocs of CollectionDocs are the documents the prediction was
	// estimated on.
	SampledDocs    int64 `json:"sampledDocs,omitempty"`
	CollectionDocs int64 `json:"collectionDocs,omitempty"`
	// Note says why the shape gets no index, when it gets none.
	Note string `json:"note,omitempty"`
}

// Proposal is an index to build.
type Proposal struct {
	DB         string   `json:"db"`
	Coll       string   `json:"coll"`
	Key        Key      `json:"key"`
	Name       string   `json:"name"`
	Shapes     []string `json:"shapes"`
	IndexBytes int64    `json:"estimatedIndexBytes"`
}

// NS returns "db.coll".
func (p Proposal) NS() string { return p.DB + "." + p.Coll }

// IndexRef is an existing index the report points at.
type IndexRef struct {
	NS   string `json:"ns"`
	Name string `json:"name"`
	Key  Key    `json:"key"`
	// Ops is $indexStats' accesses.ops (unused indexes).
	Ops int64 `json:"ops"`
	// Since is when the counting began ($indexStats' accesses.since) and
	// ObservedMillis the server running time it covers since then.
	Since          *time.Time `json:"since,omitempty"`
	ObservedMillis int64      `json:"observedMillis,omitempty"`
	// PrefixOf names the index whose key this one's is a prefix of.
	PrefixOf string `json:"prefixOf,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Report is the advisor's answer.
type Report struct {
	Rows      []Row      `json:"shapes"`
	Proposals []Proposal `json:"proposals"`
	Unused    []IndexRef `json:"unusedIndexes"`
	// Undecided are indexes no operation used, observed for less than
	// Thresholds.MinObserved: no verdict.
	Undecided  []IndexRef `json:"notObservedLongEnough"`
	Prefix     []IndexRef `json:"prefixIndexes"`
	Thresholds Thresholds `json:"thresholds"`
	// Built names the indexes Apply built (lode advise --apply).
	Built []string `json:"built,omitempty"`
}

// existing is an index of a collection.
type existing struct {
	name    string
	key     Key
	btree   bool
	special bool // unique, sparse, partial or TTL: not redundant as a prefix
}

// Run reads the shapes from src and builds the report, costing the
// candidates with the server's lodeWhatIf command.
func Run(ctx context.Context, client *mongo.Client, src StatsSource, o Options) (*Report, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	docs, err := src(ctx)
	if err != nil {
		return nil, err
	}
	var shapes []*Shape
	for _, d := range docs {
		s, err := ParseShape(d)
		if err != nil {
			log.Warn("advise: skipping a statistics document", "err", err)
			continue
		}
		if inScope(o, s.DB, s.Coll) && !s.reportsOnly() {
			shapes = append(shapes, s)
		}
	}
	sort.SliceStable(shapes, func(i, j int) bool {
		if shapes[i].NS() != shapes[j].NS() {
			return shapes[i].NS() < shapes[j].NS()
		}
		return shapes[i].ExecCount > shapes[j].ExecCount
	})
	rep := &Report{Rows: []Row{}, Proposals: []Proposal{}, Unused: []IndexRef{}, Undecided: []IndexRef{}, Prefix: []IndexRef{},
		Thresholds: Thresholds{MinRuns: o.MinRuns, MinShareRuns: o.MinShareRuns, MinShare: o.MinShare,
			MinObservedMillis: o.MinObserved.Milliseconds()}}
	var totalMicros int64
	for _, s := range shapes {
		totalMicros += s.TotalMicros
	}
	idx := map[string][]existing{}
	missing := map[string]bool{}
	for _, s := range shapes {
		if _, ok := idx[s.NS()]; !ok {
			ixs, err := listIndexes(ctx, client.Database(s.DB).Collection(s.Coll))
			if isNamespaceNotFound(err) {
				missing[s.NS()] = true
				continue
			}
			if err != nil {
				return nil, err
			}
			idx[s.NS()] = ixs
		}
	}
	// Candidates per namespace.
	cands := map[string][]candidate{}
	owners := map[string][]int{}
	var nsOrder []string
	for i, s := range shapes {
		row := Row{NS: s.NS(), Command: s.Command, Shape: CompactShape(s), Hash: s.Hash, ExecCount: s.ExecCount,
			Plan: s.LastPlanSummary, KeysPerResult: s.KeysPerResult(), DocsPerResult: s.DocsPerResult()}
		if totalMicros > 0 {
			row.TimeShare = float64(s.TotalMicros) / float64(totalMicros)
		}
		rep.Rows = append(rep.Rows, row)
		r := &rep.Rows[i]
		if missing[s.NS()] {
			r.Note = "the collection no longer exists"
			continue
		}
		if !o.qualifies(s.ExecCount, r.TimeShare) {
			r.Note = fmt.Sprintf("too rare for a proposal: %d run(s), %.1f%% of the time", s.ExecCount, 100*r.TimeShare)
			continue
		}
		if r.KeysPerResult <= wellServed && r.DocsPerResult <= wellServed {
			r.Note = "well served"
			continue
		}
		c, why := derive(s.Filter, s.Sort)
		if why != "" {
			r.Note = why
			continue
		}
		if name := servedBy(idx[s.NS()], c); name != "" {
			r.Note = "existing index " + name + " serves it"
			continue
		}
		if _, ok := cands[s.NS()]; !ok {
			nsOrder = append(nsOrder, s.NS())
		}
		cands[s.NS()] = append(cands[s.NS()], c)
		owners[s.NS()] = append(owners[s.NS()], i)
	}
	for _, ns := range nsOrder {
		for _, m := range mergeCandidates(cands[ns], owners[ns]) {
			if err := rep.cost(ctx, client, shapes, m); err != nil {
				return nil, err
			}
		}
	}
	if err := rep.indexReports(ctx, client, o, idx); err != nil {
		return nil, err
	}
	return rep, nil
}

// reportStages are the stages that start a pipeline with a report of
// the server instead of the collection's documents: no index serves them
// (and lode advise's own $indexStats is one).
var reportStages = map[string]bool{"$indexStats": true, "$collStats": true, "$planCacheStats": true,
	"$currentOp": true, "$listSessions": true, "$listLocalSessions": true, "$queryStats": true,
	"$documents": true, "$changeStream": true, "$listSearchIndexes": true, "$listCatalog": true}

// reportsOnly reports whether s is a pipeline that starts with a report
// stage.
func (s *Shape) reportsOnly() bool {
	if s.PipelineShape == nil {
		return false
	}
	v, err := bson.RawArray(s.PipelineShape).IndexErr(0)
	if err != nil {
		return false
	}
	first, ok := v.DocumentOK()
	if !ok {
		return false
	}
	el, err := first.IndexErr(0)
	return err == nil && reportStages[el.Key()]
}

// qualifies reports whether a shape that ran runs times and took share
// of the execution time is frequent enough for a proposal.
func (o Options) qualifies(runs int64, share float64) bool {
	return runs >= o.MinRuns || (runs >= o.MinShareRuns && share >= o.MinShare)
}

// cost predicts each shape's figures with m's key and records the
// proposal when some shape gains.
func (rep *Report) cost(ctx context.Context, client *mongo.Client, shapes []*Shape, m merged) error {
	s0 := shapes[m.shapes[0]]
	p := Proposal{DB: s0.DB, Coll: s0.Coll, Key: m.key, Name: m.key.Name()}
	for _, i := range m.shapes {
		s, r := shapes[i], &rep.Rows[i]
		w, err := whatIf(ctx, client, s, m.key)
		if err != nil {
			var ce mongo.CommandError
			if errors.As(err, &ce) && ce.Code == 59 {
				r.Note = "no prediction: the server has no lodeWhatIf command (not Lode)"
				continue
			}
			if isNamespaceNotFound(err) {
				r.Note = "the collection no longer exists"
				continue
			}
			return err
		}
		per := max(w.returned, 1)
		if s.Command == "count" || s.Command == "distinct" {
			per = 1
		}
		today := r.KeysPerResult + r.DocsPerResult
		pk, pd := w.keys/per, w.docs/per
		switch {
		case !w.hypothetical:
			r.Note = fmt.Sprintf("the planner would not use %s (it would run %s)", m.key, w.plan)
		case pk+pd >= today*minGain:
			r.Note = fmt.Sprintf("%s predicts no gain (%.1f keys, %.1f docs per result)", m.key, pk, pd)
		default:
			r.Index, r.PredictedPlan = m.key, w.plan
			r.PredictedKeysPerResult, r.PredictedDocsPerResult = pk, pd
			r.IndexBytes = w.bytes
			r.SampledDocs, r.CollectionDocs = w.sampled, w.totalDocs
			p.IndexBytes = w.bytes
			p.Shapes = append(p.Shapes, r.Shape)
		}
	}
	if len(p.Shapes) > 0 {
		rep.Proposals = append(rep.Proposals, p)
	}
	return nil
}

// whatIfAnswer is lodeWhatIf's chosen plan.
type whatIfAnswer struct {
	plan               string
	hypothetical       bool
	keys, docs         float64
	returned           float64
	bytes              int64
	sampled, totalDocs int64
}

// whatIf asks the server to cost s's representative query with key.
func whatIf(ctx context.Context, client *mongo.Client, s *Shape, key Key) (whatIfAnswer, error) {
	cmd := bson.D{{Key: "lodeWhatIf", Value: s.Coll}, {Key: "filter", Value: s.Filter}}
	if len(s.Sort) > 0 {
		cmd = append(cmd, bson.E{Key: "sort", Value: s.Sort})
	}
	if s.Limit > 0 {
		cmd = append(cmd, bson.E{Key: "limit", Value: s.Limit})
	}
	cmd = append(cmd,
		bson.E{Key: "count", Value: s.Command == "count"},
		bson.E{Key: "find", Value: s.Command == "find"},
		bson.E{Key: "hypotheticalIndexes", Value: bson.A{bson.D{{Key: "key", Value: key.D()}, {Key: "name", Value: key.Name()}}}})
	raw, err := client.Database(s.DB).RunCommand(ctx, cmd).Raw()
	if err != nil {
		return whatIfAnswer{}, fmt.Errorf("advise: lodeWhatIf on %s with %s: %w", s.NS(), key, err)
	}
	ch := raw.Lookup("chosen")
	a := whatIfAnswer{
		keys:      ch.Document().Lookup("keysExamined").Double(),
		docs:      ch.Document().Lookup("docsExamined").Double(),
		returned:  ch.Document().Lookup("nReturned").Double(),
		plan:      ch.Document().Lookup("planSummary").StringValue(),
		bytes:     intOf(raw.Lookup("indexSizes", key.Name())),
		sampled:   intOf(raw.Lookup("sampled")),
		totalDocs: intOf(raw.Lookup("docs")),
	}
	a.hypothetical, _ = ch.Document().Lookup("hypothetical").BooleanOK()
	return a, nil
}

// servedBy names an existing index that serves c, or "".
func servedBy(ixs []existing, c candidate) string {
	for _, ix := range ixs {
		if ix.btree && serves(ix.key, c) {
			return ix.name
		}
	}
	return ""
}

// listIndexes reads a collection's indexes.
func listIndexes(ctx context.Context, c *mongo.Collection) ([]existing, error) {
	cur, err := c.Indexes().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("advise: list indexes of %s: %w", c.Name(), err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		return nil, fmt.Errorf("advise: list indexes of %s: %w", c.Name(), err)
	}
	out := make([]existing, 0, len(specs))
	for _, sp := range specs {
		var d struct {
			Name    string `bson:"name"`
			Key     bson.D `bson:"key"`
			Unique  bool   `bson:"unique"`
			Sparse  bool   `bson:"sparse"`
			Partial bson.D `bson:"partialFilterExpression"`
			TTL     *int64 `bson:"expireAfterSeconds"`
		}
		if err := bson.Unmarshal(sp, &d); err != nil {
			return nil, fmt.Errorf("advise: index spec of %s: %w", c.Name(), err)
		}
		k, ok := KeyFromD(d.Key)
		out = append(out, existing{name: d.Name, key: k, btree: ok,
			special: d.Unique || d.Sparse || d.Partial != nil || d.TTL != nil || d.Name == "_id_"})
	}
	return out, nil
}

// inScope applies the --db and --coll filters and leaves out the
// system databases and collections.
func inScope(o Options, db, coll string) bool {
	switch db {
	case "admin", "local", "config":
		return false
	}
	if strings.HasPrefix(coll, "system.") {
		return false
	}
	return (o.DB == "" || o.DB == db) && (o.Coll == "" || o.Coll == coll)
}

// CompactShape renders a shape as its command, filter shape and sort
// (and "limit" for a find with one): the report's shape column.
func CompactShape(s *Shape) string {
	if s.PipelineShape != nil {
		// The stages and their fields, as $queryStats' key shows them.
		return s.Command + " " + compactArray(s.PipelineShape)
	}
	f := s.FilterShape
	if f == nil {
		f = ShapeOf(s.Filter)
	}
	out := s.Command + " " + compactJSON(f)
	if len(s.SortShape) > 0 {
		out += " sort " + compactJSON(s.SortShape)
	} else if len(s.Sort) > 0 {
		b, _ := bson.Marshal(s.Sort)
		out += " sort " + compactJSON(b)
	}
	if s.Limit > 0 && s.Command == "find" {
		out += " limit"
	}
	return out
}

// compactJSON prints a document as relaxed extended JSON without spaces
// after the quotes of keys.
func compactJSON(d bson.Raw) string {
	if d == nil {
		return "{}"
	}
	b, err := bson.MarshalExtJSON(d, false, false)
	if err != nil {
		return d.String()
	}
	return string(b)
}

// compactArray prints an array as relaxed extended JSON.
func compactArray(a bson.Raw) string {
	b, err := bson.Marshal(bson.D{{Key: "a", Value: bson.RawValue{Type: bson.TypeArray, Value: a}}})
	if err != nil {
		return bson.RawArray(a).String()
	}
	s := compactJSON(b)
	return strings.TrimSuffix(strings.TrimPrefix(s, `{"a":`), "}")
}

// isNamespaceNotFound reports a command error NamespaceNotFound (26).
func isNamespaceNotFound(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == 26
}
