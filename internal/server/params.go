package server

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/agg/accum"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// allowDiskUseByDefault is MongoDB 7.0's allowDiskUseByDefault server
// parameter (default true, settable with setParameter): a find or
// aggregate without an explicit allowDiskUse may spill a blocking sort to
// disk; an explicit allowDiskUse: false keeps the 100 MB limit (292).
var allowDiskUseByDefault atomic.Bool

func init() { allowDiskUseByDefault.Store(true) }

// param is one server parameter for getParameter/setParameter.
type param struct {
	get func() bsoncore.Value
	// set validates and applies a new value; nil means read-only.
	set func(v bsoncore.Value) error
}

// params is the server's parameter table.
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

// intParam is an int parameter kept in memory, with an optional hook that
// receives new values.
func intParam(initial int64, min int64, hook func(int64)) param {
	var mu sync.Mutex
	cur := initial
	return param{
		get: func() bsoncore.Value {
			mu.Lock()
			defer mu.Unlock()
			if cur >= -1<<31 && cur < 1<<31 {
				return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(cur))}
			}
			return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, cur)}
		},
		set: func(v bsoncore.Value) error {
			n, ok := asInt64(v)
			if !ok {
				return errs.New(errs.BadValue, "value must be a number, found %s", bsonutil.TypeName(v.Type))
			}
			if n < min {
				return errs.New(errs.BadValue, "value %d must be at least %d", n, min)
			}
			mu.Lock()
			cur = n
			mu.Unlock()
			if hook != nil {
				hook(n)
			}
			return nil
		},
	}
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
		p.add("internalQueryMaxScansToExplode", intParam(200, 0, engine.SetMaxScansToExplode))
		p.add("ttlMonitorEnabled", constParam(boolValue(true)))
		p.add("ttlMonitorSleepSecs", intParam(int64(s.eng.TTLMonitorSleep()/time.Second), 1, s.setTTLSleep))
		p.add("internalQueryMaxBlockingSortMemoryUsageBytes", intParam(100*1024*1024, 1, func(n int64) {
			engine.SetMaxBlockingSortMemory(n)
			agg.SetSortMemoryLimit(n)
		}))
		p.add("internalDocumentSourceGroupMaxMemoryBytes", intParam(100*1024*1024, 1, agg.SetGroupMemoryLimit))
		p.add("internalQueryMaxPushBytes", intParam(100*1024*1024, 1, accum.SetMaxPushBytes))
		p.add("internalQueryMaxAddToSetBytes", intParam(100*1024*1024, 1, accum.SetMaxAddToSetBytes))
		p.add("allowDiskUseByDefault", boolParam(&allowDiskUseByDefault))
		p.add("storageEngine", constParam(stringValue("lode")))
		for name, pr := range s.extraParams {
			p.add(name, pr)
		}
	})
	return &s.params
}
