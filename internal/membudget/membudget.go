// Package membudget is Lode's memory budget: the bytes that large
// transient structures (incoming requests and what parsing them builds,
// blocking sorts, $group tables) may hold at once across all operations of
// one instance. Each instance has its own Budget (params.Set.Budget),
// created when its engine opens; `lode serve` gives it a limit. Each operation reserves from it as it grows, in chunks, and
// releases what it reserved when done; a reservation the budget cannot
// grant makes the operation spill to disk where it can, and fail with a
// MongoDB memory error where it cannot, instead of growing the process
// without bound.
//
// The per-operation limits (internalQueryMaxBlockingSortMemoryUsageBytes
// and its kin) still apply; the budget bounds their sum.
package membudget

import "sync/atomic"

// Budget is a memory budget. The zero value has no limit.
type Budget struct {
	limit   atomic.Int64 // 0: unlimited
	used    atomic.Int64
	refused atomic.Int64
}

// SetLimit sets the limit in bytes; 0 removes it.
func (b *Budget) SetLimit(n int64) { b.limit.Store(max(n, 0)) }

// Limit returns the limit (0: none; also for a nil Budget).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit.Load()
}

// Used returns the bytes reserved now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Refused returns how many reservations were refused so far.
func (b *Budget) Refused() int64 {
	if b == nil {
		return 0
	}
	return b.refused.Load()
}

// TryReserve reserves n bytes if the budget has them. A nil Budget grants
// everything.
func (b *Budget) TryReserve(n int64) bool {
	if n <= 0 || b == nil {
		return true
	}
	for {
		used, limit := b.used.Load(), b.limit.Load()
		if limit > 0 && used+n > limit {
			b.refused.Add(1)
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// Release returns n reserved bytes.
func (b *Budget) Release(n int64) {
	if n > 0 && b != nil {
		b.used.Add(-n)
	}
}

// Floor is what an operation may hold without reserving: a structure
// smaller than this never spills or fails for the budget's sake, so a
// spill always frees enough to go on.
const Floor = 1 << 20

// chunk is the granularity of a Reservation's growth, so that a growing
// structure touches the shared counter once per MiB, not per document.
const chunk = 1 << 20

// Reservation is one operation's share of a budget. Its zero value draws
// on no budget and grants every growth. Release it when the structure it
// covers is freed.
type Reservation struct {
	b    *Budget
	held int64
}

// For returns a reservation drawing on b (nil: none).
func For(b *Budget) Reservation { return Reservation{b: b} }

// Budget returns the budget r draws on (nil: none).
func (r *Reservation) Budget() *Budget { return r.b }

// Grow makes sure total bytes are reserved, taking more in whole chunks.
// It reports false, reserving nothing more, when the budget cannot grant
// them.
func (r *Reservation) Grow(total int64) bool {
	if total <= r.held {
		return true
	}
	need := (total - r.held + chunk - 1) / chunk * chunk
	if !r.b.TryReserve(need) {
		return false
	}
	r.held += need
	return true
}

// Held returns the bytes r holds.
func (r *Reservation) Held() int64 { return r.held }

// Release returns everything r holds; r can be grown again afterwards.
func (r *Reservation) Release() {
	r.b.Release(r.held)
	r.held = 0
}
