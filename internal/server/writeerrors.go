package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// appendWriteErrors adds the writeErrors array MongoDB puts in insert,
// update and delete replies. Each entry has index, code, errmsg and any
// extra fields of the error (keyPattern and keyValue for 11000).
func appendWriteErrors(b *bsoncore.DocumentBuilder, wes []engine.WriteError) {
	if len(wes) == 0 {
		return
	}
	ab := bsoncore.NewArrayBuilder()
	for _, we := range wes {
		eb := bsoncore.NewDocumentBuilder().
			AppendInt32("index", int32(we.Index)).
			AppendInt32("code", int32(we.Err.Code))
		if len(we.Err.Info) > 0 {
			elems, _ := bsoncore.Document(we.Err.Info).Elements()
			for _, el := range elems {
				eb.AppendValue(el.Key(), el.Value())
			}
		}
		eb.AppendString("errmsg", we.Err.Msg)
		ab.AppendDocument(eb.Build())
	}
	b.AppendArray("writeErrors", ab.Build())
}
