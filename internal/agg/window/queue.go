package window

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// valueOverhead approximates what a held value costs beyond its bytes.
const valueOverhead = 32

// queue is a first-in first-out queue of values.
type queue struct {
	vals []bsoncore.Value
	head int
	mem  int64
}

func (q *queue) push(v bsoncore.Value) {
	v = bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
	q.vals = append(q.vals, v)
	q.mem += valueOverhead + int64(len(v.Data))
}

func (q *queue) pop() bsoncore.Value {
	v := q.vals[q.head]
	q.vals[q.head] = bsoncore.Value{}
	q.head++
	q.mem -= valueOverhead + int64(len(v.Data))
	if q.head > 64 && q.head*2 > len(q.vals) {
		n := copy(q.vals, q.vals[q.head:])
		clear(q.vals[n:])
		q.vals, q.head = q.vals[:n], 0
	}
	return v
}

func (q *queue) len() int                { return len(q.vals) - q.head }
func (q *queue) at(i int) bsoncore.Value { return q.vals[q.head+i] }
func (q *queue) front() bsoncore.Value   { return q.vals[q.head] }
func (q *queue) back() bsoncore.Value    { return q.vals[len(q.vals)-1] }
func (q *queue) items() []bsoncore.Value { return q.vals[q.head:] }
func (q *queue) memUsage() int64         { return q.mem + int64(cap(q.vals))*24 }
