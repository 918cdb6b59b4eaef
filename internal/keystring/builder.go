package keystring

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// Builder builds a compound key and its type bits field by field. The zero
// value is ready to use; Reset reuses its buffers.
type Builder struct {
	key []byte
	tb  []byte
}

// Reset empties the builder, keeping its buffers.
func (b *Builder) Reset() {
	b.key = b.key[:0]
	b.tb = b.tb[:0]
}

// Append adds the next key field, in index order.
func (b *Builder) Append(v bsoncore.Value, descending bool) {
	b.key = AppendValue(b.key, v, descending)
	b.tb = AppendTypeBits(b.tb, v)
}

// Key returns the key built so far. It aliases the builder's buffer until
// the next Reset.
func (b *Builder) Key() []byte { return b.key }

// TypeBits returns the trimmed type bits of the fields appended so far.
// It aliases the builder's buffer until the next Reset.
func (b *Builder) TypeBits() []byte { return TrimTypeBits(b.tb) }
