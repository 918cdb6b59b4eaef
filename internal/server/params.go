package server

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// param is one server parameter for getParameter/setParameter.
// The query and aggregation knobs are fields of the engine's params.Set
// (s.eng.Params()), so each instance has its own; the rest are kept by
// the server's own table.
type param struct {
	get func() bsoncore.Value
	// set validates and applies a new value; nil means read-only.
	set func(v bsoncore.Value) error
}

// params is the server's parameter table (one per Server).
type params struct {
	mu sync.Mutex
	m  map[string]param
}

func (p *params) add(name string, pr param) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]param{}
	}
	p.m[name] = pr
}

func (p *params) lookup(name string) (param, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr, ok := p.m[name]
	return pr, ok
}

func (p *params) names() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.m))
	for n := range p.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// constParam is a read-only parameter.
func constParam(v bsoncore.Value) param {
	return param{get: func() bsoncore.Value { return v }}
}

// intParam is an int parameter kept by the server's table, with an
// optional hook that receives new values.
func intParam(initial int64, min int64, hook func(int64)) param {
	cur := new(atomic.Int64)
	cur.Store(initial)
	return param{
		get: func() bsoncore.Value { return intValue(cur.Load()) },
		set: func(v bsoncore.Value) error {
			n, err := intArg(v, min)
			if err != nil {
				return err
			}
			cur.Store(n)
			if hook != nil {
				hook(n)
			}
			return nil
		},
	}
}

// atomicIntParam is an int parameter stored in a (a field of the
// instance's params.Set), at least min.
func atomicIntParam(a *atomic.Int64, min int64) param {
	return param{
		get: func() bsoncore.Value { return intValue(a.Load()) },
		set: func(v bsoncore.Value) error {
			n, err := intArg(v, min)
			if err != nil {
				return err
			}
			a.Store(n)
			return nil
		},
	}
}

// intArg reads a new value of an int parameter, at least min.
func intArg(v bsoncore.Value, min int64) (int64, error) {
	n, ok := asInt64(v)
	if !ok {
		return 0, errs.New(errs.BadValue, "value must be a number, found %s", bsonutil.TypeName(v.Type))
	}
	if n < min {
		return 0, errs.New(errs.BadValue, "value %d must be at least %d", n, min)
	}
	return n, nil
}

// intValue renders an int parameter: an int32 when it fits.
func intValue(n int64) bsoncore.Value {
	if n >= -1<<31 && n < 1<<31 {
		return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(n))}
	}
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, n)}
}

// boolParam is a boolean parameter stored in b.
func boolParam(b *atomic.Bool) param {
	return param{
		get: func() bsoncore.Value { return boolValue(b.Load()) },
		set: func(v bsoncore.Value) error {
			if v.Type != bsoncore.TypeBoolean {
				return errs.New(errs.BadValue, "value must be a boolean, found %s", bsonutil.TypeName(v.Type))
			}
			b.Store(v.Boolean())
			return nil
		},
	}
}

func stringValue(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}

func boolValue(b bool) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeBoolean, Data: bsoncore.AppendBoolean(nil, b)}
}

func docValue(d bsoncore.Document) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
}

// Params returns the server's parameter table, filled with defaults on
// first use. Components register runtime-settable parameters here.
func (s *Server) paramTable() *params {
	s.paramsOnce.Do(func() {
		p := &s.params
		p.add("featureCompatibilityVersion", constParam(docValue(
			bsoncore.NewDocumentBuilder().AppendString("version", "7.0").Build())))
		p.add("authenticationMechanisms", constParam(bsoncore.Value{Type: bsoncore.TypeArray,
			Data: bsoncore.NewArrayBuilder().Build()}))
		p.add("cursorTimeoutMillis", intParam(int64(s.cursorTimeout().Milliseconds()), 1, func(ms int64) {
			s.cursors.SetTimeout(time.Duration(ms) * time.Millisecond)
		}))
		p.add("logLevel", intParam(0, 0, nil))
		p.add("quiet", constParam(boolValue(false)))
		p.add("maxBSONDepth", constParam(bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, 200)}))
		p.add("transactionLifetimeLimitSeconds", intParam(60, 1, nil))
		ep := s.eng.Params()
		p.add("internalQueryMaxScansToExplode", atomicIntParam(&ep.MaxScansToExplode, 0))
		p.add("ttlMonitorEnabled", constParam(boolValue(true)))
		p.add("ttlMonitorSleepSecs", intParam(int64(s.eng.TTLMonitorSleep()/time.Second), 1, s.setTTLSleep))
		p.add("internalQueryMaxBlockingSortMemoryUsageBytes", atomicIntParam(&ep.MaxBlockingSortBytes, 1))
		p.add("internalDocumentSourceGroupMaxMemoryBytes", atomicIntParam(&ep.GroupMaxBytes, 1))
		p.add("internalDocumentSourceSetWindowFieldsMaxMemoryBytes", atomicIntParam(&ep.WindowMaxBytes, 1))
		p.add("internalQueryMaxPushBytes", atomicIntParam(&ep.MaxPushBytes, 1))
		p.add("internalQueryMaxAddToSetBytes", atomicIntParam(&ep.MaxAddToSetBytes, 1))
		p.add("allowDiskUseByDefault", boolParam(&ep.AllowDiskUseByDefault))
		p.add("minSnapshotHistoryWindowInSeconds", atomicIntParam(&ep.SnapshotHistorySeconds, 0))
		p.add("internalDocumentSourceGraphLookupMaxMemoryBytes", atomicIntParam(&ep.GraphLookupMaxBytes, 1))
		p.add("internalDocumentSourceDensifyMaxMemoryBytes", atomicIntParam(&ep.DensifyMaxBytes, 1))
		p.add("internalQueryMaxAllowedDensifyDocs", atomicIntParam(&ep.DensifyMaxDocs, 1))
		p.add("storageEngine", constParam(stringValue("lode")))
		// The users and roles schema (mongod 3.0+'s SCRAM schema, 5);
		// mongodump --dumpDbUsersAndRoles reads it.
		p.add("authSchemaVersion", constParam(bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, 5)}))
		p.add("enableTestCommands", constParam(boolValue(s.cfg.TestCommands)))
		// Startup parameters of the session cache (sessions_coll.go).
		p.add("logicalSessionRefreshMillis", constParam(intValue(s.sessionRefresh().Milliseconds())))
		p.add("localLogicalSessionTimeoutMinutes", constParam(intValue(int64(s.sessionTimeoutMinutes()))))
		for name, pr := range s.extraParams {
			p.add(name, pr)
		}
	})
	return &s.params
}
