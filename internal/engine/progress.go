package engine

import (
	"context"
	"sync"
)

// Progress is what a long-running operation (an index build) reports while
// it runs: a phase message and done/total counts, which currentOp shows as
// mongod's msg and progress fields.
type Progress struct {
	mu          sync.Mutex
	msg         string
	done, total int64
}

// Index build phases, worded as mongod's MultiIndexBlock words them.
const (
	progressScan   = "Index Build: scanning collection"
	progressInsert = "Index Build: inserting keys from external sorter into index"
)

func (p *Progress) set(msg string, done, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.msg, p.done, p.total = msg, done, total
	p.mu.Unlock()
}

// Snapshot returns the current phase and counts; ok is false before the
// operation reported anything.
func (p *Progress) Snapshot() (msg string, done, total int64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.msg, p.done, p.total, p.msg != ""
}

type progressKey struct{}

// WithProgress returns ctx carrying p, which operations run with ctx
// update.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

func progressFrom(ctx context.Context) *Progress {
	p, _ := ctx.Value(progressKey{}).(*Progress)
	return p
}
