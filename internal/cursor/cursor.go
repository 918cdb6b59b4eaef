// Package cursor keeps the server's open cursors: the iterators behind find,
// aggregate, listCollections and listIndexes replies that a client drains
// with getMore. Each cursor has a non-zero id, belongs to a namespace, and
// is closed after an idle timeout (10 minutes by default, as in MongoDB;
// settable at run time with Registry.SetTimeout). Cursors opened with
// noCursorTimeout are exempt.
package cursor

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// MaxResultDocSize is mongod's BSONObjMaxInternalSize (16 MiB + 16 KiB):
// a result document past it is not returned; its conversion to BSON
// fails with BSONObjectTooLarge (10334), as a $group whose $push built
// 20 MB does in mongod.
const MaxResultDocSize = 16<<20 + 16<<10

// tooLargeErr is BSONObj::_assertInvalid's error for doc.
func tooLargeErr(doc bsoncore.Document) error {
	first := "EOO"
	if el, err := doc.IndexErr(0); err == nil {
		first = bsonutil.FormatElem(el.Key(), el.Value(), bsonutil.Style{})
	}
	return errs.New(errs.BSONObjectTooLarge, "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and %d(16MB) First element: %s",
		len(doc), uint32(len(doc)), MaxResultDocSize, first)
}

// Source is what a cursor drains. Next returns (nil, nil) at the end.
type Source interface {
	Next() (bsoncore.Document, error)
	Close() error
}

// Ender is implemented by tailable sources that can end for good (a
// change stream after its invalidate event): their cursor is exhausted
// once Next returns nil and Ended is true.
type Ender interface {
	Ended() bool
}

// Waiter is implemented by tailable sources that know when they have new
// documents: an awaitData getMore waits on them instead of on writes to
// the cursor's namespace.
type Waiter interface {
	Wait(ctx context.Context, d time.Duration)
}

// ContextSetter is implemented by sources whose work is bounded by a
// context: NextBatch hands them the context of the command being served.
type ContextSetter interface {
	SetContext(ctx context.Context)
}

// Cursor is an open server-side cursor.
type Cursor struct {
	ID int64
	// NS is the full namespace "db.coll" reported in replies.
	NS string
	// Tailable cursors stay open at the end of their data; AwaitData makes
	// getMore wait for new data up to maxTimeMS.
	Tailable  bool
	AwaitData bool
	// Limit is the number of documents the client asked for in total (0 =
	// no limit); Returned counts what has been sent.
	Limit    int64
	Returned int64
	// NoTimeout exempts the cursor from the idle timeout (find's
	// noCursorTimeout); it stays open until exhausted or killed.
	NoTimeout bool

	// Ctx, when set, is the context the source was created with; each
	// batch switches it to the context of the command being served.
	Ctx *SwitchContext

	// TimeLeft, when > 0, is the processing time the cursor may still
	// spend: the originating command's maxTimeMS bounds the whole cursor,
	// summed over its batches (idle time between getMores does not count),
	// as in MongoDB. It does not apply to awaitData cursors, whose getMore
	// maxTimeMS is the wait for new data.
	TimeLeft time.Duration

	// OutlivesNamespace: a drop or rename of the namespace does not kill
	// the cursor (a change stream reports them as events).
	OutlivesNamespace bool

	// Session is the logical session the cursor was opened in (""
	// without one): killing or ending the session kills the cursor.
	// With InTxn, Session and TxnNumber identify the multi-document
	// transaction the cursor was opened in; such a cursor reads the
	// transaction's view and is killed when the transaction ends.
	Session   string
	TxnNumber int64
	InTxn     bool

	// Owner is the user authenticated on the connection that opened the
	// cursor ("db.name"; empty when none was): under authorization only
	// that user may continue or kill it, as in mongod. Privileges, opaque
	// here, is what the opening command needed; getMore checks it again.
	Owner      string
	Privileges any

	// Obs, opaque here, is what the server's query statistics gather
	// over the cursor's batches (querystats.go); set and read only by
	// the command holding the cursor. OnClose, when set, is called once
	// when the cursor closes, whatever closes it (exhausted, killed,
	// timed out, its session or namespace gone).
	Obs     any
	OnClose func(c *Cursor)

	src     Source
	pending bsoncore.Document // a document read but not yet sent
	used    time.Time
	busy    bool
	killed  bool // removed while checked out: closed by Release
	closed  bool
	// planKilled, once its collection was dropped or renamed, is the
	// error the next getMore gets (then the cursor is gone).
	planKilled error
}

// Registry holds the open cursors of one server.
type Registry struct {
	mu      sync.Mutex
	cursors map[int64]*Cursor
	timeout time.Duration // guarded by mu
	reset   chan struct{} // wakes the reaper after SetTimeout
	stop    chan struct{}
	done    chan struct{}
}

// DefaultTimeout is MongoDB's cursorTimeoutMillis default.
const DefaultTimeout = 10 * time.Minute

// NewRegistry returns a registry that closes cursors idle for longer than
// timeout (DefaultTimeout when zero). Call Close to stop its reaper.
func NewRegistry(timeout time.Duration) *Registry {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	r := &Registry{
		cursors: make(map[int64]*Cursor),
		timeout: timeout,
		reset:   make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go r.reap()
	return r
}

// SetTimeout changes the idle timeout (setParameter cursorTimeoutMillis).
// It applies to every open cursor, measured from its last use, and takes
// effect within one reaper period of the new timeout.
func (r *Registry) SetTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultTimeout
	}
	r.mu.Lock()
	r.timeout = d
	r.mu.Unlock()
	select {
	case r.reset <- struct{}{}:
	default:
	}
}

// Timeout returns the current idle timeout.
func (r *Registry) Timeout() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timeout
}

// reapPeriod is how often the reaper looks for idle cursors: a tenth of
// the timeout, between 10 ms and one minute.
func reapPeriod(timeout time.Duration) time.Duration {
	return min(max(timeout/10, 10*time.Millisecond), time.Minute)
}

func (r *Registry) reap() {
	defer close(r.done)
	t := time.NewTicker(reapPeriod(r.Timeout()))
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-r.reset:
			t.Reset(reapPeriod(r.Timeout()))
		case now := <-t.C:
			r.reapIdle(now)
		}
	}
}

// reapIdle closes the cursors idle for longer than the timeout as of now,
// except checked-out and noCursorTimeout ones, and returns how many.
func (r *Registry) reapIdle(now time.Time) int {
	var idle []*Cursor
	r.mu.Lock()
	for id, c := range r.cursors {
		if !c.busy && !c.NoTimeout && now.Sub(c.used) > r.timeout {
			delete(r.cursors, id)
			idle = append(idle, c)
		}
	}
	r.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
	return len(idle)
}

// Close stops the reaper and closes every open cursor.
func (r *Registry) Close() {
	select {
	case <-r.stop:
		return
	default:
	}
	close(r.stop)
	<-r.done
	r.mu.Lock()
	all := r.cursors
	r.cursors = map[int64]*Cursor{}
	r.mu.Unlock()
	for _, c := range all {
		c.close()
	}
}

// Len returns the number of open cursors.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.cursors)
}

// New wraps src in a cursor that is not yet registered. Fill its first
// batch with NextBatch, then Register it if it is not exhausted.
func New(ns string, src Source) *Cursor {
	return &Cursor{NS: ns, src: src, used: time.Now()}
}

// Register gives c an id and keeps it for getMore.
func (r *Registry) Register(c *Cursor) int64 {
	var b [8]byte
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		_, _ = rand.Read(b[:])
		id := int64(binary.LittleEndian.Uint64(b[:]) &^ (1 << 63))
		if id == 0 {
			continue
		}
		if _, dup := r.cursors[id]; dup {
			continue
		}
		c.ID = id
		c.used = time.Now()
		r.cursors[id] = c
		return id
	}
}

// Checkout takes the cursor id of namespace ns for one getMore. It fails
// with CursorNotFound (43) when the id is unknown and with Unauthorized
// (13) when the namespace differs, as MongoDB does. Release must follow.
func (r *Registry) Checkout(id int64, ns string) (*Cursor, error) {
	return r.CheckoutWith(id, ns, nil)
}

// CheckoutWith is Checkout with check run first on the found cursor,
// under the registry's lock (it must not call back into the registry):
// the session, transaction and ownership checks mongod makes before it
// compares namespaces. A cursor that fails check stays as it was.
func (r *Registry) CheckoutWith(id int64, ns string, check func(*Cursor) error) (*Cursor, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.cursors[id]
	if !ok {
		return nil, errs.New(errs.CursorNotFound, "cursor id %d not found", id)
	}
	if check != nil {
		if err := check(c); err != nil {
			return nil, err
		}
	}
	if c.NS != ns {
		return nil, errs.New(errs.Unauthorized, "Requested getMore on namespace '%s', but cursor belongs to a different namespace %s", ns, c.NS)
	}
	if c.busy {
		return nil, errs.New(errs.CursorNotFound, "cursor id %d is already in use", id)
	}
	if err := c.planKilled; err != nil {
		delete(r.cursors, id)
		c.close()
		return nil, err
	}
	c.busy = true
	return c, nil
}

// Release returns a checked-out cursor. An exhausted cursor is removed and
// closed.
func (r *Registry) Release(c *Cursor, exhausted bool) {
	r.mu.Lock()
	c.busy = false
	c.used = time.Now()
	if c.killed {
		exhausted = true
	} else if exhausted {
		delete(r.cursors, c.ID)
	}
	r.mu.Unlock()
	if exhausted {
		c.close()
	}
}

// Owner returns the owner and namespace of cursor id, for killCursors'
// authorization; ok is false when no such cursor is open.
func (r *Registry) Owner(id int64) (owner, ns string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.cursors[id]
	if !ok {
		return "", "", false
	}
	return c.Owner, c.NS, true
}

// Kill closes the given cursors and reports which ids were killed and
// which were not found.
func (r *Registry) Kill(ids []int64) (killed, notFound []int64) {
	var toClose []*Cursor
	r.mu.Lock()
	for _, id := range ids {
		if c, ok := r.cursors[id]; ok {
			delete(r.cursors, id)
			killed = append(killed, id)
			if c.busy {
				// A getMore is reading it: Release closes it.
				c.killed = true
				continue
			}
			toClose = append(toClose, c)
		} else {
			notFound = append(notFound, id)
		}
	}
	r.mu.Unlock()
	for _, c := range toClose {
		c.close()
	}
	return killed, notFound
}

// KillSessions closes the cursors opened in the sessions of keys
// (Cursor.Session), or in any session when keys is nil, and returns how
// many it closed.
func (r *Registry) KillSessions(keys map[string]bool) int {
	var ids []int64
	r.mu.Lock()
	for id, c := range r.cursors {
		if c.Session != "" && (keys == nil || keys[c.Session]) {
			ids = append(ids, id)
		}
	}
	r.mu.Unlock()
	killed, _ := r.Kill(ids)
	return len(killed)
}

// KillNamespace marks every cursor of namespace ns as killed with err:
// its next getMore fails with err and removes it, as mongod does after a
// drop or rename (QueryPlanKilled). It returns how many it marked.
func (r *Registry) KillNamespace(ns string, err error) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.cursors {
		if c.NS == ns && c.planKilled == nil && !c.OutlivesNamespace {
			c.planKilled = err
			n++
		}
	}
	return n
}

func (c *Cursor) close() {
	if !c.closed {
		c.closed = true
		_ = c.src.Close()
		if f := c.OnClose; f != nil {
			c.OnClose = nil
			f(c)
		}
	}
}

func (c *Cursor) ended() bool {
	e, ok := c.src.(Ender)
	return ok && e.Ended()
}

// Source returns what the cursor drains (for its optional interfaces:
// Waiter, and the server's resume tokens).
func (c *Cursor) Source() Source { return c.src }

// Close releases the cursor's source; for cursors never registered.
func (c *Cursor) Close() { c.close() }

// NextBatch reads up to n documents (n <= 0 means no count limit) whose
// total size stays within maxBytes; the first document is always taken.
// It returns the batch and whether the source is exhausted. A tailable
// cursor is never reported exhausted by running out of data. ctx bounds
// the time spent (maxTimeMS).
func (c *Cursor) NextBatch(ctx context.Context, n int, maxBytes int) ([]bsoncore.Document, bool, error) {
	if c.TimeLeft > 0 && !c.AwaitData {
		bctx, cancel := context.WithTimeout(ctx, c.TimeLeft)
		defer cancel()
		start := time.Now()
		defer func() {
			// Once spent, keep a token amount so the next batch fails.
			c.TimeLeft = max(c.TimeLeft-time.Since(start), time.Nanosecond)
		}()
		docs, exhausted, err := c.nextBatch(bctx, n, maxBytes)
		if err != nil && bctx.Err() == context.DeadlineExceeded && ctx.Err() == nil && !errs.Is(err, errs.MaxTimeMSExpired) {
			err = errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
		}
		return docs, exhausted, err
	}
	return c.nextBatch(ctx, n, maxBytes)
}

// StartTimeLimit makes the deadline of ctx (the command's maxTimeMS), if
// any, the cursor's processing-time budget for later batches.
func (c *Cursor) StartTimeLimit(ctx context.Context) {
	if dl, ok := ctx.Deadline(); ok && !c.AwaitData {
		c.TimeLeft = max(time.Until(dl), time.Nanosecond)
	}
}

// ctxCheckEvery is how many documents a batch takes between two looks at
// its context.
const ctxCheckEvery = 64

func (c *Cursor) nextBatch(ctx context.Context, n int, maxBytes int) ([]bsoncore.Document, bool, error) {
	if c.Ctx != nil {
		c.Ctx.Set(ctx)
	}
	if cs, ok := c.src.(ContextSetter); ok {
		cs.SetContext(ctx)
	}
	var out []bsoncore.Document
	size := 0
	for n <= 0 || len(out) < n {
		if c.Limit > 0 && c.Returned >= c.Limit {
			return out, true, nil
		}
		// The context is asked at the batch's start and then every
		// ctxCheckEvery documents: with a maxTimeMS deadline, asking reads
		// the clock (the source checks it as well while it works).
		if len(out)%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, false, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
		}
		doc := c.pending
		c.pending = nil
		if doc == nil {
			var err error
			doc, err = c.src.Next()
			if err != nil {
				return nil, false, err
			}
			if doc == nil {
				return out, !c.Tailable || c.ended(), nil
			}
		}
		if len(doc) > MaxResultDocSize {
			return nil, false, tooLargeErr(doc)
		}
		if len(out) > 0 && size+len(doc) > maxBytes {
			c.pending = doc
			return out, false, nil
		}
		size += len(doc)
		out = append(out, doc)
		c.Returned++
	}
	if c.Limit > 0 && c.Returned >= c.Limit {
		return out, true, nil
	}
	// Peek so that the batch which drains the source reports exhaustion,
	// as MongoDB returns cursor id 0 with the last batch.
	if c.pending == nil && !c.Tailable {
		doc, err := c.src.Next()
		if err != nil {
			return nil, false, err
		}
		if doc == nil {
			return out, true, nil
		}
		c.pending = doc
	}
	return out, false, nil
}

// Info describes an open cursor for $currentOp's idleCursors.
type Info struct {
	ID        int64
	NS        string
	LastUsed  time.Time
	Returned  int64
	NoTimeout bool
	Tailable  bool
	AwaitData bool
}

// Idle lists the open cursors that no getMore is using, in no order.
func (r *Registry) Idle() []Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Info, 0, len(r.cursors))
	for _, c := range r.cursors {
		if c.busy {
			continue
		}
		out = append(out, Info{ID: c.ID, NS: c.NS, LastUsed: c.used, Returned: c.Returned,
			NoTimeout: c.NoTimeout, Tailable: c.Tailable, AwaitData: c.AwaitData})
	}
	return out
}
