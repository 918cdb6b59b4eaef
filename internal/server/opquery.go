package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/wire"
)

// handleOpQuery answers a legacy OP_QUERY on a "$cmd" namespace (the
// caller answers other namespaces). As in MongoDB 7.0, only the handshake
// commands (hello, isMaster) are accepted; other commands are refused with
// UnsupportedOpQueryCommand.
func (c *conn) handleOpQuery(q *wire.Query) bsoncore.Document {
	db, _, _ := splitNS(q.FullCollectionName)
	// Checked while upconverting the request, before the command name.
	if q.NumberToReturn != 1 && q.NumberToReturn != -1 {
		return errorDoc(errs.New(errs.Location16979, "Bad numberToReturn (%d) for $cmd type ns - can only be 1 or -1", q.NumberToReturn))
	}
	cmd := q.Query
	// Drivers may wrap the command as {$query: {...}, $readPreference: ...}.
	if v, err := cmd.LookupErr("$query"); err == nil {
		if d, ok := v.DocumentOK(); ok {
			cmd = d
		}
	}
	first, err := cmd.IndexErr(0)
	if err != nil {
		return errorDoc(errs.New(errs.FailedToParse, "empty command document"))
	}
	name := first.Key()
	// mongod matches the names exactly (checkAllowedOpQueryCommand).
	switch name {
	case "hello", "isMaster", "ismaster":
	default:
		return errorDoc(errs.New(errs.UnsupportedOpQueryCommand, "Unsupported OP_QUERY command: %s. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal", name))
	}
	// Re-enter the normal dispatcher with $db added.
	withDB := appendField(cmd, "$db", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, db)})
	return c.s.dispatch(context.Background(), c, withDB, false)
}

// appendField returns doc with one more field at the end.
func appendField(doc bsoncore.Document, key string, v bsoncore.Value) bsoncore.Document {
	out := make([]byte, 0, len(doc)+len(key)+len(v.Data)+8)
	out = append(out, doc[:len(doc)-1]...)
	out = bsoncore.AppendValueElement(out, key, v)
	out = append(out, 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}
