package window

import (
	"github.com/lodedb/lode/internal/agg/accum"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// inputFunc evaluates an accumulator's input for each document added and
// keeps the values of the window in a queue, which the removable
// functions read back on removal.
type inputFunc struct {
	f    *accum.Factory
	vars *expr.Vars
	q    queue
	// keep is false when the window's lower bound is unbounded: nothing
	// ever leaves, so the values need not be kept for removal.
	keep bool
}

// remember queues v for its removal when values leave the window.
func (in *inputFunc) remember(v bsoncore.Value) {
	if in.keep {
		in.q.push(v)
	}
}

func (in *inputFunc) input(doc bsoncore.Document) (bsoncore.Value, error) {
	return in.f.Input(doc, in.vars)
}

// removable returns the constructor of name's state over window b.
func removable(name string, f *accum.Factory, b Bounds) func(vars *expr.Vars) (Func, error) {
	return func(vars *expr.Vars) (Func, error) {
		in := inputFunc{f: f, vars: vars, keep: !b.LoUnb}
		switch name {
		case "$sum", "$count":
			return &sumFunc{inputFunc: in}, nil
		case "$avg":
			return &sumFunc{inputFunc: in, avg: true}, nil
		case "$min":
			return &minMaxFunc{inputFunc: in, dir: -1}, nil
		case "$max":
			return &minMaxFunc{inputFunc: in, dir: 1}, nil
		case "$first":
			return &firstLastFunc{inputFunc: in, first: true}, nil
		case "$last":
			return &firstLastFunc{inputFunc: in}, nil
		case "$push":
			return &pushFunc{inputFunc: in}, nil
		case "$addToSet":
			return newSetFunc(in), nil
		case "$stdDevPop":
			return &stdDevFunc{inputFunc: in}, nil
		case "$stdDevSamp":
			return &stdDevFunc{inputFunc: in, samp: true}, nil
		}
		return newRecompute(in, b.LoUnb)
	}
}

// recomputeFunc computes any accumulator over the window: with an
// unbounded lower bound nothing ever leaves, so one accumulator folds
// the documents as they come; otherwise a new accumulator folds the
// window's values for each result.
type recomputeFunc struct {
	inputFunc
	incremental bool
	acc         accum.Accumulator
}

func newRecompute(in inputFunc, incremental bool) (Func, error) {
	r := &recomputeFunc{inputFunc: in, incremental: incremental}
	if incremental {
		a, err := in.f.NewAccumulator(emptyDoc, in.vars)
		if err != nil {
			return nil, err
		}
		r.acc = a
	}
	return r, nil
}

var emptyDoc = bsoncore.Document{5, 0, 0, 0, 0}

func (r *recomputeFunc) Add(doc bsoncore.Document) error {
	v, err := r.input(doc)
	if err != nil {
		return err
	}
	if r.incremental {
		return r.acc.Add(v)
	}
	r.q.push(v)
	return nil
}

func (r *recomputeFunc) Remove() error {
	if !r.incremental {
		r.q.pop()
	}
	return nil
}

func (r *recomputeFunc) Result(int64) (bsoncore.Value, error) {
	if r.incremental {
		return r.acc.Result()
	}
	a, err := r.f.NewAccumulator(emptyDoc, r.vars)
	if err != nil {
		return bsoncore.Value{}, err
	}
	for _, v := range r.q.items() {
		if err := a.Add(v); err != nil {
			return bsoncore.Value{}, err
		}
	}
	return a.Result()
}

func (r *recomputeFunc) MemUsage() int64 {
	if r.incremental {
		return int64(r.acc.MemUsage())
	}
	return r.q.memUsage()
}
