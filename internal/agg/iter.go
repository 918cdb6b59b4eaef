package agg

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// sliceIter serves documents held in memory.
type sliceIter struct {
	docs []bsoncore.Document
	i    int
}

func (s *sliceIter) Next() (bsoncore.Document, error) {
	if s.i >= len(s.docs) {
		return nil, nil
	}
	d := s.docs[s.i]
	s.docs[s.i] = nil
	s.i++
	return d, nil
}

func (s *sliceIter) Close() error { s.docs = nil; return nil }

// funcIter adapts a next function and a close function.
type funcIter struct {
	next  func() (bsoncore.Document, error)
	close func() error
}

func (f *funcIter) Next() (bsoncore.Document, error) { return f.next() }

func (f *funcIter) Close() error {
	if f.close == nil {
		return nil
	}
	c := f.close
	f.close = nil
	return c()
}

// mapIter applies fn to each input document; fn returns nil to drop it.
func mapIter(in Iterator, fn func(bsoncore.Document) (bsoncore.Document, error)) Iterator {
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			for {
				d, err := in.Next()
				if err != nil || d == nil {
					return nil, err
				}
				out, err := fn(d)
				if err != nil {
					return nil, err
				}
				if out != nil {
					return out, nil
				}
			}
		},
		close: in.Close,
	}
}

// drain reads all of it and closes it.
func drain(it Iterator) ([]bsoncore.Document, error) {
	defer it.Close()
	var out []bsoncore.Document
	for {
		d, err := it.Next()
		if err != nil {
			return nil, err
		}
		if d == nil {
			return out, nil
		}
		out = append(out, d)
	}
}

// specDoc builds {name: v}.
func specDoc(name string, v bsoncore.Value) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendValue(name, v).Build()
}

// docValue wraps a document as a value.
func docValue(d bsoncore.Document) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
}

// nextChecked returns in's next document for a blocking stage that reads its
// whole input. n counts the documents read so far; every 1024 of them it
// checks ctx, so maxTimeMS and killOp stop a long $group or $sort.
func nextChecked(ctx context.Context, in Iterator, n int64) (bsoncore.Document, error) {
	if n&1023 == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return in.Next()
}
