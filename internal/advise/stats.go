package advise

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// StatsSource returns the recorded query shapes as $queryStats documents:
//
//	{key: {queryShape: {cmdNs: {db, coll}, command, filter, sort, ...}},
//	 queryShapeHash, representativeQuery: {filter, sort, limit, pipeline, ...},
//	 metrics: {execCount, keysExamined: {sum}, docsExamined: {sum},
//	           docsReturned: {sum}, lastPlanSummary, ...}}
type StatsSource func(ctx context.Context) ([]bson.Raw, error)

// ErrNoQueryStats reports a server without the $queryStats stage.
var ErrNoQueryStats = errors.New("advise: the server has no $queryStats stage (query shape statistics are not recorded)")

// QueryStatsSource reads the shapes with
// db.adminCommand({aggregate: 1, pipeline: [{$queryStats: {}}], cursor: {}}).
// A server that does not know the stage yields ErrNoQueryStats.
func QueryStatsSource(client *mongo.Client) StatsSource {
	return func(ctx context.Context) ([]bson.Raw, error) {
		cur, err := client.Database("admin").Aggregate(ctx, mongo.Pipeline{{{Key: "$queryStats", Value: bson.D{}}}})
		if err != nil {
			var ce mongo.CommandError
			if errors.As(err, &ce) && (ce.Code == 59 || ce.Code == 40324) {
				return nil, fmt.Errorf("%w: %v", ErrNoQueryStats, err)
			}
			return nil, fmt.Errorf("advise: read $queryStats: %w", err)
		}
		var out []bson.Raw
		for cur.Next(ctx) {
			out = append(out, append(bson.Raw(nil), cur.Current...))
		}
		if err := cur.Err(); err != nil {
			cur.Close(ctx)
			return nil, fmt.Errorf("advise: read $queryStats: %w", err)
		}
		return out, cur.Close(ctx)
	}
}

// Shape is one recorded query shape, as the advisor reads it.
type Shape struct {
	DB, Coll string
	// Command is find, aggregate, findAndModify, count, distinct,
	// update or delete.
	Command string
	Hash    string
	// FilterShape and SortShape are the shape's filter and sort (values
	// replaced by their types).
	FilterShape bson.Raw
	SortShape   bson.Raw
	// PipelineShape is an aggregate's pipeline shape (key.queryShape.pipeline).
	PipelineShape bson.Raw
	// Filter, Sort and Limit are the representative query's (for an
	// aggregate: its leading $match, a $sort and a $limit after it).
	Filter bson.Raw
	Sort   bson.D
	Limit  int64

	ExecCount                                int64
	KeysExamined, DocsExamined, DocsReturned int64
	// TotalMicros is metrics.totalExecMicros.sum, the shape's execution
	// time.
	TotalMicros     int64
	LastPlanSummary string
}

// NS returns "db.coll".
func (s *Shape) NS() string { return s.DB + "." + s.Coll }

// Results is the number of results the shape's figures are divided by:
// the documents returned, and for writes and counts (whose reply is one
// document, or none) at least one per execution; never below 1.
func (s *Shape) Results() float64 {
	n := s.DocsReturned
	switch s.Command {
	case "findAndModify", "update", "delete", "count", "distinct":
		n = max(n, s.ExecCount)
	}
	return float64(max(n, 1))
}

// KeysPerResult and DocsPerResult are today's figures per result.
func (s *Shape) KeysPerResult() float64 { return float64(s.KeysExamined) / s.Results() }

// DocsPerResult is today's documents examined per result.
func (s *Shape) DocsPerResult() float64 { return float64(s.DocsExamined) / s.Results() }

// ParseShape reads one $queryStats document.
func ParseShape(doc bson.Raw) (*Shape, error) {
	qs, ok := doc.Lookup("key", "queryShape").DocumentOK()
	if !ok {
		return nil, errors.New("advise: stats document without key.queryShape")
	}
	s := &Shape{}
	s.DB, _ = qs.Lookup("cmdNs", "db").StringValueOK()
	s.Coll, _ = qs.Lookup("cmdNs", "coll").StringValueOK()
	s.Command, _ = qs.Lookup("command").StringValueOK()
	if s.DB == "" || s.Command == "" {
		return nil, errors.New("advise: stats document without cmdNs.db or command")
	}
	s.FilterShape, _ = qs.Lookup("filter").DocumentOK()
	s.SortShape, _ = qs.Lookup("sort").DocumentOK()
	if arr, ok := qs.Lookup("pipeline").ArrayOK(); ok {
		s.PipelineShape = bson.Raw(arr)
	}
	s.Hash, _ = doc.Lookup("queryShapeHash").StringValueOK()
	rep, _ := doc.Lookup("representativeQuery").DocumentOK()
	if err := s.readRepresentative(rep); err != nil {
		return nil, err
	}
	m, _ := doc.Lookup("metrics").DocumentOK()
	s.ExecCount = intOf(m.Lookup("execCount"))
	s.KeysExamined = intOf(m.Lookup("keysExamined", "sum"))
	s.DocsExamined = intOf(m.Lookup("docsExamined", "sum"))
	s.DocsReturned = intOf(m.Lookup("docsReturned", "sum"))
	s.TotalMicros = intOf(m.Lookup("totalExecMicros", "sum"))
	s.LastPlanSummary, _ = m.Lookup("lastPlanSummary").StringValueOK()
	return s, nil
}

// readRepresentative takes the filter, sort and limit of the
// representative query; an aggregate's come from its leading stages.
func (s *Shape) readRepresentative(rep bson.Raw) error {
	if rep == nil {
		return fmt.Errorf("advise: shape %s of %s has no representativeQuery", s.Hash, s.NS())
	}
	for _, k := range []string{"filter", "query", "q"} {
		if d, ok := rep.Lookup(k).DocumentOK(); ok {
			s.Filter = d
			break
		}
	}
	if d, ok := rep.Lookup("sort").DocumentOK(); ok {
		if err := bson.Unmarshal(d, &s.Sort); err != nil {
			return fmt.Errorf("advise: sort of shape %s: %w", s.Hash, err)
		}
	}
	s.Limit = intOf(rep.Lookup("limit"))
	if s.Command == "findAndModify" || s.Command == "update" || s.Command == "delete" {
		if s.Sort != nil || s.Command == "findAndModify" {
			s.Limit = 1
		}
	}
	if arr, ok := rep.Lookup("pipeline").ArrayOK(); ok && s.Command == "aggregate" {
		vals, _ := arr.Values()
		for i, v := range vals {
			st, ok := v.DocumentOK()
			if !ok {
				break
			}
			if m, ok := st.Lookup("$match").DocumentOK(); ok && i == 0 {
				s.Filter = m
				continue
			}
			if d, ok := st.Lookup("$sort").DocumentOK(); ok && s.Sort == nil {
				if err := bson.Unmarshal(d, &s.Sort); err != nil {
					return fmt.Errorf("advise: $sort of shape %s: %w", s.Hash, err)
				}
				continue
			}
			if l := st.Lookup("$limit"); l.Type != 0 && s.Sort != nil {
				s.Limit = intOf(l)
			}
			break
		}
	}
	if s.Limit < 0 {
		s.Limit = -s.Limit
	}
	if s.Filter == nil {
		s.Filter = bson.Raw(emptyDoc)
	}
	return nil
}

var emptyDoc = []byte{5, 0, 0, 0, 0}

// intOf reads a number (int32, int64 or double) as int64; 0 otherwise.
func intOf(v bson.RawValue) int64 {
	switch v.Type {
	case bson.TypeInt32:
		return int64(v.Int32())
	case bson.TypeInt64:
		return v.Int64()
	case bson.TypeDouble:
		return int64(v.Double())
	}
	return 0
}
