package advise

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/queryshape"
)

// Recorder is a StatsSource for servers that record no query shapes: it
// captures the reads and writes a driver client sends (install Monitor on
// the client's options), groups them by shape, and on Source re-runs up
// to perShape of each shape's latest commands under explain
// (executionStats) to get their keys and documents examined, scaled to the
// shape's number of executions. The figures are those of the data as it
// is when Source runs, not as it was when the commands ran.
type Recorder struct {
	mu     sync.Mutex
	groups map[string]*recGroup
	order  []string
}

type recGroup struct {
	db, coll, command string
	filterShape       bson.Raw
	sortShape         bson.Raw
	pipelineShape     bson.Raw // an aggregate's stages, shaped
	count             int64
	last              []bson.Raw // latest commands, newest last
}

// recordedCommands are the commands the recorder groups.
var recordedCommands = map[string]bool{"find": true, "findAndModify": true, "count": true, "update": true, "delete": true, "aggregate": true}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{groups: map[string]*recGroup{}} }

// Monitor returns the command monitor to install on a client.
func (r *Recorder) Monitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if recordedCommands[e.CommandName] {
			r.record(e.DatabaseName, e.CommandName, e.Command)
		}
	}}
}

// Reset forgets every recorded command.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups, r.order = map[string]*recGroup{}, nil
}

const recKeep = 64

func (r *Recorder) record(db, name string, cmd bson.Raw) {
	coll, _ := cmd.Lookup(name).StringValueOK()
	if coll == "" || db == "admin" || db == "local" || db == "config" {
		return
	}
	filter, sort := commandQuery(name, cmd)
	if name == "aggregate" {
		if filter == nil {
			return // only pipelines that start with $match
		}
	}
	fs := ShapeOf(filter)
	key := strings.Join([]string{db, coll, name, compactJSON(fs), compactJSON(sort)}, "\x00")
	var ps bson.Raw
	if name == "aggregate" {
		// Pipelines are told apart by their stages, as $queryStats does.
		arr, _ := cmd.Lookup("pipeline").ArrayOK()
		vals, _ := arr.Values()
		stages := make([]bsoncore.Document, 0, len(vals))
		for _, v := range vals {
			if d, ok := v.DocumentOK(); ok {
				stages = append(stages, bsoncore.Document(d))
			}
		}
		ps = bson.Raw(queryshape.Pipeline(stages))
		key += "\x00" + compactArray(ps)
	}
	if name == "find" {
		if _, ok := cmd.Lookup("limit").AsInt64OK(); ok {
			key += "\x00limit"
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.groups[key]
	if g == nil {
		g = &recGroup{db: db, coll: coll, command: name, filterShape: fs, sortShape: sort, pipelineShape: ps}
		r.groups[key] = g
		r.order = append(r.order, key)
	}
	g.count++
	g.last = append(g.last, append(bson.Raw(nil), cmd...))
	if len(g.last) > recKeep {
		g.last = g.last[len(g.last)-recKeep:]
	}
}

// commandQuery returns a command's filter and sort.
func commandQuery(name string, cmd bson.Raw) (filter, sort bson.Raw) {
	switch name {
	case "find":
		filter, _ = cmd.Lookup("filter").DocumentOK()
		sort, _ = cmd.Lookup("sort").DocumentOK()
	case "findAndModify", "count":
		filter, _ = cmd.Lookup("query").DocumentOK()
		sort, _ = cmd.Lookup("sort").DocumentOK()
	case "update", "delete":
		field := map[string]string{"update": "updates", "delete": "deletes"}[name]
		arr, _ := cmd.Lookup(field).ArrayOK()
		vals, _ := arr.Values()
		if len(vals) > 0 {
			st, _ := vals[0].DocumentOK()
			filter, _ = st.Lookup("q").DocumentOK()
			sort, _ = st.Lookup("sort").DocumentOK()
		}
	case "aggregate":
		arr, _ := cmd.Lookup("pipeline").ArrayOK()
		vals, _ := arr.Values()
		if len(vals) > 0 {
			st, _ := vals[0].DocumentOK()
			filter, _ = st.Lookup("$match").DocumentOK()
		}
	}
	if filter == nil && name != "aggregate" {
		filter = bson.Raw(emptyDoc)
	}
	return filter, sort
}

// Source returns the recorded shapes as $queryStats documents, explaining
// up to perShape commands of each shape through client.
func (r *Recorder) Source(client *mongo.Client, perShape int) StatsSource {
	return func(ctx context.Context) ([]bson.Raw, error) {
		r.mu.Lock()
		groups := make([]recGroup, 0, len(r.order))
		for _, k := range r.order {
			groups = append(groups, *r.groups[k])
		}
		r.mu.Unlock()
		var out []bson.Raw
		for _, g := range groups {
			doc, err := g.stats(ctx, client, perShape)
			if err != nil {
				return nil, err
			}
			out = append(out, doc)
		}
		return out, nil
	}
}

// stats explains g's latest commands and builds its $queryStats document.
func (g *recGroup) stats(ctx context.Context, client *mongo.Client, perShape int) (bson.Raw, error) {
	cmds := g.last
	if perShape > 0 && len(cmds) > perShape {
		cmds = cmds[len(cmds)-perShape:]
	}
	var keys, docs, ret int64
	var plan string
	for _, c := range cmds {
		res, err := client.Database(g.db).RunCommand(ctx, bson.D{
			{Key: "explain", Value: explainable(c)}, {Key: "verbosity", Value: "executionStats"}}).Raw()
		if err != nil {
			return nil, fmt.Errorf("advise: explain a recorded %s on %s.%s: %w", g.command, g.db, g.coll, err)
		}
		es, _ := res.Lookup("executionStats").DocumentOK()
		keys += intOf(es.Lookup("totalKeysExamined"))
		docs += intOf(es.Lookup("totalDocsExamined"))
		ret += intOf(es.Lookup("nReturned"))
		plan = planSummaryOf(res)
	}
	scale := func(n int64) int64 {
		if len(cmds) == 0 {
			return 0
		}
		return n * g.count / int64(len(cmds))
	}
	last := cmds[len(cmds)-1]
	filter, sort := commandQuery(g.command, last)
	rep := bson.D{{Key: "filter", Value: filter}}
	if sort != nil {
		rep = append(rep, bson.E{Key: "sort", Value: sort})
	}
	if l, ok := last.Lookup("limit").AsInt64OK(); ok && g.command == "find" {
		rep = append(rep, bson.E{Key: "limit", Value: l})
	}
	if p, ok := last.Lookup("pipeline").ArrayOK(); ok {
		rep = append(rep, bson.E{Key: "pipeline", Value: p})
	}
	qs := bson.D{{Key: "cmdNs", Value: bson.D{{Key: "db", Value: g.db}, {Key: "coll", Value: g.coll}}},
		{Key: "command", Value: g.command}, {Key: "filter", Value: g.filterShape}}
	if g.sortShape != nil {
		qs = append(qs, bson.E{Key: "sort", Value: g.sortShape})
	}
	if g.pipelineShape != nil {
		qs = append(qs, bson.E{Key: "pipeline", Value: bson.RawValue{Type: bson.TypeArray, Value: g.pipelineShape}})
	}
	sum := func(n int64) bson.D { return bson.D{{Key: "sum", Value: scale(n)}} }
	doc := bson.D{
		{Key: "key", Value: bson.D{{Key: "queryShape", Value: qs}}},
		{Key: "representativeQuery", Value: rep},
		{Key: "metrics", Value: bson.D{
			{Key: "execCount", Value: g.count},
			{Key: "keysExamined", Value: sum(keys)},
			{Key: "docsExamined", Value: sum(docs)},
			{Key: "docsReturned", Value: sum(ret)},
			{Key: "lastPlanSummary", Value: plan},
		}},
	}
	return bson.Marshal(doc)
}

// explainable strips a recorded command of the fields explain refuses
// (session, cluster time, write concern, API version).
func explainable(cmd bson.Raw) bson.D {
	elems, _ := cmd.Elements()
	out := bson.D{}
	for _, e := range elems {
		switch k := e.Key(); {
		case strings.HasPrefix(k, "$"), k == "lsid", k == "txnNumber", k == "writeConcern", k == "readConcern",
			k == "apiVersion", k == "apiStrict", k == "apiDeprecationErrors", k == "cursor" && cmd.Lookup("aggregate").Type == 0:
		default:
			out = append(out, bson.E{Key: k, Value: e.Value()})
		}
	}
	return out
}

// planSummaryOf renders an explain's winning plan as mongod's planSummary.
func planSummaryOf(explain bson.Raw) string {
	wp, ok := explain.Lookup("queryPlanner", "winningPlan").DocumentOK()
	if !ok {
		return ""
	}
	var parts []string
	var walk func(d bson.Raw)
	walk = func(d bson.Raw) {
		st, _ := d.Lookup("stage").StringValueOK()
		switch st {
		case "COLLSCAN", "EOF":
			parts = append(parts, st)
		case "IXSCAN", "DISTINCT_SCAN", "COUNT_SCAN":
			var k bson.D
			if kp, ok := d.Lookup("keyPattern").DocumentOK(); ok && bson.Unmarshal(kp, &k) == nil {
				if key, ok := KeyFromD(k); ok {
					parts = append(parts, st+" "+key.String())
					break
				}
			}
			parts = append(parts, st)
		}
		if in, ok := d.Lookup("inputStage").DocumentOK(); ok {
			walk(in)
		}
		if arr, ok := d.Lookup("inputStages").ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, v := range vals {
				if sub, ok := v.DocumentOK(); ok {
					walk(sub)
				}
			}
		}
	}
	walk(wp)
	seen := map[string]bool{}
	var uniq []string
	for _, p := range parts {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	return strings.Join(uniq, ", ")
}
