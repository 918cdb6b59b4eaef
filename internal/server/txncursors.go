package server

import (
	"context"
	"fmt"

	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// cmdSession is the session a command runs in, carried by its context.
type cmdSession struct {
	key       string // lsid.id bytes
	txnNumber int64
	hasTxn    bool // the command carries a txnNumber
}

type cmdSessionKey struct{}

// withCmdSession returns ctx carrying the command's session fields: its
// running op holds them when ctx is a command's (no context of its own).
func withCmdSession(ctx context.Context, key string, a sessionArgs) context.Context {
	cs := cmdSession{key: key, txnNumber: a.txnNumber, hasTxn: a.hasTxnNumber}
	if op, ok := ctx.(*runningOp); ok && !op.hasSession {
		op.session, op.hasSession = cs, true
		return ctx
	}
	return context.WithValue(ctx, cmdSessionKey{}, cs)
}

// cmdSessionFrom returns the command's session fields; ok is false for a
// command without lsid.
func cmdSessionFrom(ctx context.Context) (cmdSession, bool) {
	if cs, ok := ctx.Value(cmdSessionKey{}).(cmdSession); ok {
		return cs, true
	}
	if op := opFrom(ctx); op != nil && op.hasSession {
		return op.session, true
	}
	return cmdSession{}, false
}

// tieCursorToTxn marks a cursor opened inside a multi-document transaction
// as belonging to it, and kills it when the transaction commits or aborts
// (its source reads the transaction's view, which ends with it). It is
// called before the cursor is registered.
//
// Any cursor opened with an lsid records its session, so that killing or
// ending the session, or its expiry, kills the cursor, as in mongod.
func (s *Server) tieCursorToTxn(ctx context.Context, c *cursor.Cursor) {
	tx := engine.TxnFrom(ctx)
	cs, ok := cmdSessionFrom(ctx)
	if ok {
		c.Session = cs.key
	}
	if tx == nil || !ok {
		return
	}
	c.Session, c.TxnNumber, c.InTxn = cs.key, cs.txnNumber, true
	tx.OnEnd(func() {
		if c.ID != 0 {
			s.cursors.Kill([]int64{c.ID})
		}
	})
}

// checkCursorTxn applies mongod's getMore rules to a cursor tied to a
// transaction: only its session (50737, 50738) and its transaction (50740,
// 50741) may continue it, and a cursor opened outside a transaction cannot
// be continued inside one (50739).
func checkCursorTxn(ctx context.Context, id int64, c *cursor.Cursor) error {
	cs, hasSession := cmdSessionFrom(ctx)
	inTxn := engine.TxnFrom(ctx) != nil
	if !c.InTxn {
		if inTxn {
			return errs.New(errs.Location50739, "Cannot run getMore on cursor %d, which was not created in a transaction, in transaction %d", id, cs.txnNumber)
		}
		return nil
	}
	switch {
	case !hasSession:
		return errs.New(errs.Location50737, "Cannot run getMore on cursor %d, which was created in session %s, without an lsid", id, uuidString(c.Session))
	case cs.key != c.Session:
		return errs.New(errs.Location50738, "Cannot run getMore on cursor %d, which was created in session %s, in session %s", id, uuidString(c.Session), uuidString(cs.key))
	case !cs.hasTxn:
		return errs.New(errs.Location50740, "Cannot run getMore on cursor %d, which was created in transaction %d, without a txnNumber", id, c.TxnNumber)
	case cs.txnNumber != c.TxnNumber:
		return errs.New(errs.Location50741, "Cannot run getMore on cursor %d, which was created in transaction %d, in transaction %d", id, c.TxnNumber, cs.txnNumber)
	}
	return nil
}

// uuidString renders 16 raw bytes as a UUID.
func uuidString(b string) string {
	if len(b) != 16 {
		return fmt.Sprintf("%x", b)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
