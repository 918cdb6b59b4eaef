package agg

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/keystring"
)

// keyer computes the group keys of one $group execution; each goroutine
// of a parallel $group has its own.
//
// The key of a document is hashed from its encoding: a keystring, whose
// bytes are equal exactly when MongoDB's comparison calls two values
// equal (1, 1.0 and NumberLong(1) alike). For an object literal _id such
// as {p: "$path", d: {$dayOfMonth: "$time"}} no document is built per
// input: each field is encoded in turn, a 0 byte for a missing field
// (left out of the object), a 2 byte with the length and bytes of a
// string, or a 1 byte and the value's keystring, which is prefix-free,
// so the concatenation identifies the object. The key
// document itself is built only for a new group.
type keyer struct {
	g    *groupStage
	vals []bsoncore.Value
	ks   []byte
	key  bsoncore.Value
	// last is, per field of an object literal _id, the last small
	// scalar encoded and its encoding: fields that repeat from one
	// document to the next (the year, month and day of events in time
	// order) are encoded once.
	last []lastEnc
}

// lastEnc is a value of up to maxLastEnc bytes and its keystring.
type lastEnc struct {
	typ  bsoncore.Type
	n    int
	data [maxLastEnc]byte
	enc  []byte
}

// maxLastEnc is the largest value lastEnc keeps: numbers, dates,
// ObjectIds.
const maxLastEnc = 16

// appendLast appends the keystring of v, the value of field i, reusing
// the field's last encoding when v is the same value.
func (k *keyer) appendLast(i int, v bsoncore.Value) {
	if len(v.Data) > maxLastEnc {
		k.ks = keystring.AppendValue(k.ks, v, false)
		return
	}
	if k.last == nil {
		k.last = make([]lastEnc, len(k.g.idExprs))
	}
	c := &k.last[i]
	if c.typ == v.Type && c.n == len(v.Data) && string(c.data[:c.n]) == string(v.Data) {
		k.ks = append(k.ks, c.enc...)
		return
	}
	start := len(k.ks)
	k.ks = keystring.AppendValue(k.ks, v, false)
	c.typ, c.n = v.Type, copy(c.data[:], v.Data)
	c.enc = append(c.enc[:0], k.ks[start:]...)
}

// hash evaluates d's group key (after the folded stage's fields, if any)
// and returns its encoding, valid until the next call.
func (k *keyer) hash(d bsoncore.Document, vars *expr.Vars) ([]byte, error) {
	g := k.g
	vars.NextDoc() // d's key and accumulators may share field lookups
	if g.pre != nil {
		if err := g.evalPre(d, vars); err != nil {
			return nil, err
		}
	}
	if g.idNames == nil || g.keyFn != nil {
		key, err := g.key(d, vars)
		if err != nil {
			return nil, err
		}
		k.key = key
		if g.coll != nil {
			key = g.coll.Transform(key)
		}
		k.ks = keystring.AppendValue(k.ks[:0], key, false)
		return k.ks, nil
	}
	k.ks, k.vals = k.ks[:0], k.vals[:0]
	for i, e := range g.idExprs {
		v, err := e.Eval(d, vars)
		if err != nil {
			return nil, err
		}
		if v.Type == 0 && len(g.idExprs) == 1 {
			// An _id document of one field takes a missing value as null,
			// as mongod's group does (its key is then the field's value
			// alone: {_id: {a: "$a"}} puts {a: null} and {} in one group,
			// {a: null}); with more fields a missing one stays missing.
			v = expr.Null
		}
		k.vals = append(k.vals, v)
		if g.coll != nil {
			// Under a collation the key holds sort keys (the group's _id
			// is the first value met).
			v = g.coll.Transform(v)
		}
		switch v.Type {
		case 0:
			k.ks = append(k.ks, 0)
		case bsoncore.TypeString, bsoncore.TypeSymbol:
			// Strings (and symbols, which compare equal to them) are
			// equal exactly when their bytes are: length and bytes, no
			// escaping.
			s := v.Data[4 : len(v.Data)-1]
			k.ks = append(k.ks, 2)
			k.ks = binary.AppendUvarint(k.ks, uint64(len(s)))
			k.ks = append(k.ks, s...)
		default:
			k.ks = append(k.ks, 1)
			k.appendLast(i, v)
		}
	}
	return k.ks, nil
}

// value returns the key whose encoding the last hash call returned.
func (k *keyer) value() bsoncore.Value {
	if k.g.idNames == nil || k.g.keyFn != nil {
		return k.key
	}
	b := expr.NewDocBuilder()
	for i, n := range k.g.idNames {
		b.Append(n, k.vals[i])
	}
	return b.Value()
}
