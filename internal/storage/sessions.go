package storage

import (
	"encoding/binary"
	"fmt"
)

// Session store.
//
// The sessions' retryable-write and transaction records (mongod's
// config.transactions) live under kindSession: session id's header at
// 0x06 | len(id) | id, the result of statement stmt of its transaction
// number txn at the header's key | 0x01 | txn | stmt (big-endian). The
// records' format is the server's; this file alone knows their keys.

// kindSession prefixes the sessions' records.
const kindSession byte = 0x06

// appendSessionKey appends the key of session id's header.
func appendSessionKey(dst, id []byte) []byte {
	dst = append(dst, kindSession, byte(len(id)))
	return append(dst, id...)
}

// appendSessionStmtKey appends the key of statement stmt of transaction
// number txn of session id.
func appendSessionStmtKey(dst, id []byte, txn int64, stmt int32) []byte {
	dst = append(appendSessionKey(dst, id), 0x01)
	dst = binary.BigEndian.AppendUint64(dst, uint64(txn))
	return binary.BigEndian.AppendUint32(dst, uint32(stmt))
}

// SetSession adds to b the write of session id's header record.
func SetSession(b *Batch, id, header []byte) error {
	b.kb = appendSessionKey(b.scratch(), id)
	return b.set(b.kb, header)
}

// SetSessionStmt adds to b the write of the result of statement stmt of
// transaction number txn of session id.
func SetSessionStmt(b *Batch, id []byte, txn int64, stmt int32, v []byte) error {
	b.kb = appendSessionStmtKey(b.scratch(), id, txn, stmt)
	return b.set(b.kb, v)
}

// DeleteSessionStmts adds to b the removal of every statement record of
// session id, whatever their transaction number.
func DeleteSessionStmts(b *Batch, id []byte) error {
	lo := append(appendSessionKey(nil, id), 0x01)
	hi := append(appendSessionKey(nil, id), 0x02)
	return b.deleteRange(lo, hi)
}

// DeleteSession adds to b the removal of every record of session id in
// r: its header and statements. Each record gets its own point deletion,
// not one range deletion: a range tombstone in Pebble's memtable makes
// every read of every key the memtable holds check it, until the memtable
// is flushed, and drivers end their sessions (endSessions) whenever a
// client disconnects. (Measured: a 10,000-document find over records
// still in the memtable cost 20-35% more server CPU after one client
// disconnected.)
func DeleteSession(b *Batch, r Reader, id []byte) error {
	lo := appendSessionKey(nil, id)
	hi := append(appendSessionKey(nil, id), 0xff)
	it, err := NewRangeIter(r, lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := b.del(it.Key()); err != nil {
			return err
		}
	}
	return it.Error()
}

// GetSession reads session id's header record from r and appends it to
// dst; found is false when there is none.
func GetSession(r Reader, id, dst []byte) (v []byte, found bool, err error) {
	return Get(r, appendSessionKey(nil, id), dst)
}

// SessionStmts calls fn with each statement record of transaction number
// txn of session id in r, in statement order, until fn returns an error.
// v is valid only during the call.
func SessionStmts(r Reader, id []byte, txn int64, fn func(stmt int32, v []byte) error) error {
	lo := appendSessionStmtKey(nil, id, txn, 0)
	hi := appendSessionStmtKey(nil, id, txn+1, 0)
	it, err := NewRangeIter(r, lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != len(lo) {
			continue
		}
		stmt := int32(binary.BigEndian.Uint32(k[len(k)-4:]))
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if err := fn(stmt, v); err != nil {
			return err
		}
	}
	return it.Error()
}

// Sessions calls fn with the id and header record of every session in r
// that has one, until fn returns an error. Both are valid only during the
// call.
func Sessions(r Reader, fn func(id, header []byte) error) error {
	it, err := NewRangeIter(r, []byte{kindSession}, []byte{kindSession + 1})
	if err != nil {
		return fmt.Errorf("storage: session iterator: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) < 2 || len(k) != 2+int(k[1]) {
			continue // a statement record
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if err := fn(k[2:], v); err != nil {
			return err
		}
	}
	return it.Error()
}
