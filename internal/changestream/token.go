package changestream

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

// Token is a position in the stream of events: the oplog timestamp of
// the event's entry, its index inside a transaction's applyOps, and
// whether it is an invalidate event (which follows the drop or rename at
// the same position) or a high-water mark (a position after every event
// of its timestamp, sent as postBatchResumeToken when a batch is
// caught up).
//
// Tokens are {_data: hex string} like mongod's, and like mongod's their
// hex strings sort in stream order. Drivers treat them as opaque.
type Token struct {
	TS    oplog.TS
	Op    uint32
	Flags byte
}

// Token flags.
const (
	flagInvalidate byte = 1
	flagHighWater  byte = 2
)

// highWater is the token of a position after every event up to ts.
func highWater(ts oplog.TS) Token { return Token{TS: ts, Op: ^uint32(0), Flags: flagHighWater} }

// less orders positions in the stream.
func (t Token) less(u Token) bool {
	if t.TS != u.TS {
		return t.TS < u.TS
	}
	if t.Op != u.Op {
		return t.Op < u.Op
	}
	return t.Flags < u.Flags
}

// Invalidate reports whether the token is an invalidate event's.
func (t Token) Invalidate() bool { return t.Flags&flagInvalidate != 0 }

// String is the token's _data.
func (t Token) String() string {
	return fmt.Sprintf("82%016X%08X%02X", uint64(t.TS), t.Op, t.Flags)
}

// Doc is the token as events and replies carry it: {_data: "..."}.
func (t Token) Doc() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendString("_data", t.String()).Build()
}

// ParseToken reads a resumeAfter or startAfter value, with option naming
// the option in errors.
func ParseToken(v bsoncore.Value, option string) (Token, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return Token{}, errs.New(errs.TypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%s', expected type 'object'", option, bsonutil.TypeName(v.Type))
	}
	data, ok := d.Lookup("_data").StringValueOK()
	if !ok {
		return Token{}, errs.New(errs.InvalidResumeToken, "Bad resume token: _data of missing or of wrong type. Expected string, got %s", d.String())
	}
	if len(data) != 2+16+8+2 || data[:2] != "82" {
		return Token{}, errs.New(errs.InvalidResumeToken, "Bad resume token: %q was not made by this server", data)
	}
	if _, err := hex.DecodeString(data[2:]); err != nil {
		return Token{}, errs.New(errs.InvalidResumeToken, "Bad resume token: %q is not hexadecimal", data)
	}
	ts, _ := strconv.ParseUint(data[2:18], 16, 64)
	op, _ := strconv.ParseUint(data[18:26], 16, 32)
	fl, _ := strconv.ParseUint(data[26:28], 16, 8)
	return Token{TS: oplog.TS(ts), Op: uint32(op), Flags: byte(fl)}, nil
}
