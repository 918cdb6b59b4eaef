// Package keystring encodes BSON values into byte strings whose
// lexicographic order (bytes.Compare) is MongoDB's value order
// (bsonutil.Compare, simple collation). Index entries in storage are keyed
// by (indexID, keystring(key fields), recordID), so an ordered Pebble scan
// over an index visits the keys in MongoDB's sort order.
//
// # Encoding
//
// Every value starts with one type byte; the type bytes follow MongoDB's
// canonical type brackets (MinKey < undefined < null < numbers < strings <
// objects < arrays < binData < ObjectId < bool < date < timestamp < regex <
// dbPointer < code < code with scope < MaxKey). What follows depends on the
// type:
//
//   - MinKey, undefined, null, MaxKey, true, false: nothing (false and true
//     have two consecutive type bytes).
//   - Numbers: a class byte (NaN < -Inf < negative < zero < positive < +Inf)
//     and, for finite non-zero values, a magnitude body (complemented for
//     negative values). The magnitude body is the 8 big-endian bytes of the
//     largest double d <= |x|, then 0x00 if |x| == d exactly, or 0x01 and a
//     decimal tail if not. The tail is the biased decimal exponent E (2
//     bytes) and the significant digits (no trailing zeros) of |x| =
//     0.d1d2d3... * 10^E, packed two per byte as 1+10*a+b, then 0x00. Only
//     int64 values above 2^53 and decimal128 values that are not exactly a
//     double need a tail, so int32 and double keys take 10 bytes. Equal
//     numbers of any type encode identically.
//   - Strings and symbols, code: the bytes with 0x00 escaped as 0x00 0xFF,
//     then the terminator 0x00 0x00.
//   - Objects: for each element the element's type-bracket byte, the field
//     name and 0x00, and the element's value encoding; then 0x04, which is
//     below every type byte so that a prefix sorts first. Arrays: the same
//     without field names (array field names are assumed to be "0", "1",
//     ...).
//   - binData: 4-byte big-endian payload length, subtype, payload.
//   - ObjectId: its 12 bytes. Date: int64 with the sign bit flipped.
//     Timestamp: t then i, big-endian unsigned.
//   - Regex: pattern, 0x00, flags, 0x00. DBPointer: 4-byte namespace length,
//     namespace, 12-byte ObjectId. Code with scope: code as a string, then
//     the scope as an object body.
//
// Every encoding is self-delimiting, hence prefix-free: no encoding is a
// proper prefix of a different one. So two concatenations of field
// encodings first differ inside the same field, and complementing every
// byte of a descending field's encoding exactly reverses that field's
// order. A compound key is the concatenation of its field encodings in
// index order; the storage layer appends the recordID after it.
//
// # Type bits
//
// The key keeps values, not always types: 1 (int32), 1 (int64), 1.0 and
// decimal 1.0 encode the same, as do a string and a symbol with the same
// bytes. The type bits, stored in the index entry's value, restore them.
// They are a sequence of codes, one per number or string-like value in
// encoding order (nested values included): see typebits.go. Code 0 means
// "the natural type" and trailing zero codes are trimmed, so keys made of
// int32s, non-integral doubles, large int64s and strings have empty type
// bits.
//
// Decoding with the right type bits restores every value exactly, except:
// the payload and sign of a NaN, and arrays whose field names are not
// "0", "1", ... (they are renumbered).
//
// # Bounds
//
// A scan for field k of a compound index whose earlier fields are fixed to
// a prefix P uses the byte range from Interval; PrefixEnd(p) is the smallest
// key above every key starting with p. See bounds.go.
package keystring
