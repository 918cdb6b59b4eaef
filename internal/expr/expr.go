// Package expr implements MongoDB 7.0's aggregation expression language:
// parsing of expression values (field paths, variables, literals, document
// and array builders, operator expressions) into a tree that is evaluated
// many times against raw BSON documents.
//
// A result whose Type is 0 is "missing" (see Missing and IsMissing); it is
// distinct from BSON null, as in MongoDB.
package expr

import (
	"context"
	"time"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/membudget"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Expr is a parsed aggregation expression.
type Expr interface {
	// Eval evaluates the expression with doc as $$ROOT and $$CURRENT.
	// vars may be nil. The result may alias doc or the expression's
	// constants; callers must not modify it.
	Eval(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error)
}

// Missing is the value of an expression that produced nothing (a missing
// field, $$REMOVE). Its Type is 0.
var Missing = bsoncore.Value{}

// IsMissing reports whether v is the missing value.
func IsMissing(v bsoncore.Value) bool { return v.Type == 0 }

// IsNullish reports whether v is missing, null or undefined.
func IsNullish(v bsoncore.Value) bool {
	return v.Type == 0 || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined
}

// Truthy reports MongoDB's truthiness of v: false, null, undefined, missing
// and numeric zero are false; every other value, including empty strings
// and arrays, is true.
func Truthy(v bsoncore.Value) bool {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return false
	case bsoncore.TypeBoolean:
		return v.Boolean()
	case bsoncore.TypeInt32:
		return v.Int32() != 0
	case bsoncore.TypeInt64:
		return v.Int64() != 0
	case bsoncore.TypeDouble:
		return v.Double() != 0
	case bsoncore.TypeDecimal128:
		return !decIsZero(v)
	}
	return true
}

// Vars holds the variable bindings of one evaluation: $$NOW, the values of
// user variables (by slot, assigned at parse time by ParseContext) and an
// optional $$ROOT override.
type Vars struct {
	// Now is the value of $$NOW and $$CLUSTER_TIME; zero means time.Now()
	// at first use.
	Now time.Time
	// Root, when non-nil, is $$ROOT instead of the evaluated document.
	Root  bsoncore.Document
	slots []bsoncore.Value
	memo  docMemo
	// ctx, when set (SetContext), is the operation the loops of long
	// expressions check for its end: maxTimeMS, killOp, a client gone.
	ctx   context.Context
	ticks uint32
	// budget, when set (SetBudget), is the instance's memory budget that
	// large values built by expressions must fit in (checkBuilt).
	budget *membudget.Budget
}

// SetBudget makes expressions evaluated with vs refuse to build a value
// past 16 MiB that the instance's memory budget has no room for.
func (vs *Vars) SetBudget(b *membudget.Budget) {
	if vs != nil {
		vs.budget = b
	}
}

// SetContext makes the loops of expressions evaluated with vs ($range,
// $map, $filter, $reduce, $zip, $concatArrays, the set operators, ...)
// stop once ctx ends, as mongod checks for interrupts inside them. The
// error is MaxTimeMSExpired; the server reports a killed or disconnected
// operation as such (opError).
func (vs *Vars) SetContext(ctx context.Context) {
	if vs != nil {
		vs.ctx = ctx
	}
}

// interruptEvery is how many iterations of expression loops pass between
// two checks of the operation's context: a check costs a lock in a
// cursor's context, an iteration a few nanoseconds.
const interruptEvery = 1024

// tick counts one iteration of a long expression loop and, every
// interruptEvery iterations, fails once the operation has ended.
func (vs *Vars) tick() error {
	if vs == nil || vs.ctx == nil {
		return nil
	}
	vs.ticks++
	if vs.ticks%interruptEvery != 0 {
		return nil
	}
	return vs.Interrupted()
}

// tickN counts n iterations at once (a loop that does its own cheap work
// per element, such as a copy) and checks the context when they cross a
// multiple of interruptEvery.
func (vs *Vars) tickN(n int) error {
	if vs == nil || vs.ctx == nil || n <= 0 {
		return nil
	}
	before := vs.ticks
	vs.ticks += uint32(n)
	if before/interruptEvery == vs.ticks/interruptEvery && n < interruptEvery {
		return nil
	}
	return vs.Interrupted()
}

// Interrupted returns MaxTimeMSExpired once the operation set with
// SetContext has ended, and nil otherwise (or when none is set).
func (vs *Vars) Interrupted() error {
	if vs == nil || vs.ctx == nil || vs.ctx.Err() == nil {
		return nil
	}
	return errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
}

// NewVars returns bindings with $$NOW fixed to now.
func NewVars(now time.Time) *Vars { return &Vars{Now: now} }

// Set binds the variable in slot (from ParseContext.Define) to v.
func (vs *Vars) Set(slot int, v bsoncore.Value) {
	for len(vs.slots) <= slot {
		vs.slots = append(vs.slots, bsoncore.Value{})
	}
	vs.slots[slot] = v
}

// Get returns the value bound to slot (missing when unbound).
func (vs *Vars) Get(slot int) bsoncore.Value {
	if vs == nil || slot >= len(vs.slots) {
		return bsoncore.Value{}
	}
	return vs.slots[slot]
}

func (vs *Vars) now() time.Time {
	if vs == nil {
		return time.Now()
	}
	if vs.Now.IsZero() {
		vs.Now = time.Now()
	}
	return vs.Now
}

// ParseContext carries the variables in scope while parsing: command-level
// `let` variables defined with Define, and those introduced by $let, $map,
// $filter and $reduce. Each definition gets a unique slot in Vars.
type ParseContext struct {
	scopes []map[string]int
	nslots int
	// Now, when set, is used by constant folding of $$NOW (unused today).
	Now time.Time
	// inline rewrites current-document field paths (inline.go).
	inline       Inliner
	inlineFailed bool
	// Collator is the collation the comparing operators ($eq.. $cmp, $in,
	// $indexOfArray, the set operators, $min/$max, $minN/$maxN,
	// $sortArray) and the accumulators built from this context compare
	// strings under; nil is the simple (binary) collation.
	Collator *collation.Collator
}

// NewParseContext returns an empty parse context.
func NewParseContext() *ParseContext { return &ParseContext{} }

// Define declares a variable in the current (outermost, unless inside a
// scope) scope and returns its slot; bind it with Vars.Set before Eval.
// Use it for a command's `let` parameters.
func (pc *ParseContext) Define(name string) int {
	if len(pc.scopes) == 0 {
		pc.scopes = append(pc.scopes, map[string]int{})
	}
	slot := pc.nslots
	pc.nslots++
	pc.scopes[len(pc.scopes)-1][name] = slot
	return slot
}

// Lookup returns the slot of a user variable in scope.
func (pc *ParseContext) Lookup(name string) (int, bool) {
	for i := len(pc.scopes) - 1; i >= 0; i-- {
		if s, ok := pc.scopes[i][name]; ok {
			return s, true
		}
	}
	return 0, false
}

// NumSlots returns how many variable slots have been assigned.
func (pc *ParseContext) NumSlots() int { return pc.nslots }

func (pc *ParseContext) push() { pc.scopes = append(pc.scopes, map[string]int{}) }
func (pc *ParseContext) pop()  { pc.scopes = pc.scopes[:len(pc.scopes)-1] }

// defineScoped declares name in a fresh scope; the caller must pop.
func (pc *ParseContext) defineScoped(name string) int {
	slot := pc.nslots
	pc.nslots++
	pc.scopes[len(pc.scopes)-1][name] = slot
	return slot
}

// CompareWith compares two values in MongoDB's order under c: binary
// (bsonutil.Compare) when c is nil, so the simple collation keeps its
// direct path.
func CompareWith(c *collation.Collator, a, b bsoncore.Value) int {
	if c == nil {
		return bsonutil.Compare(a, b)
	}
	return c.Compare(a, b)
}
