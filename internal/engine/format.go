package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// msgStyle is how the engine's messages (duplicate keys, index specs,
// collection options) quote values: mongod's BSONObj::toString form, but
// with NaN and the infinities as Go prints them and symbols and code as
// extended JSON, as these messages always have.
var msgStyle = bsonutil.Style{GoNonFinite: true, JSONCode: true}

// dupKeyError builds MongoDB's E11000 error for a conflict on ix.
func dupKeyError(c *collection, ix *index, keyValue bsoncore.Document) *errs.Error {
	e := errs.New(errs.DuplicateKey, "E11000 duplicate key error collection: %s index: %s dup key: %s",
		c.NS(), ix.Name, bsonutil.FormatDoc(keyValue, msgStyle))
	e.Info = bsoncore.NewDocumentBuilder().
		AppendDocument("keyPattern", ix.Key).
		AppendDocument("keyValue", keyValue).
		Build()
	return e
}
