package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// writeConcern is a parsed writeConcern argument.
type writeConcern struct {
	w0      bool
	journal bool
	// unsatisfiable is set for w > 1 or an unknown tag: the write is done
	// but the reply carries a writeConcernError, as MongoDB's does on a
	// single node that cannot satisfy it.
	unsatisfiable *errs.Error
}

// parseWriteConcern reads the command's writeConcern field.
func parseWriteConcern(req *Request) (writeConcern, error) {
	var wc writeConcern
	v, err := req.Cmd.LookupErr("writeConcern")
	if err != nil {
		return defaultWriteConcern(req), nil // setDefaultRWConcern
	}
	d, ok := v.DocumentOK()
	if !ok {
		return wc, wrongType(req.Name, "writeConcern", v, "object")
	}
	majority, jFalse := false, false
	elems, _ := d.Elements()
	for _, el := range elems {
		x := el.Value()
		switch el.Key() {
		case "w":
			switch x.Type {
			case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble:
				n, ok := asInt64(x)
				if !ok || n < 0 {
					return wc, errs.New(errs.FailedToParse, "w has to be a non-negative number and not greater than 50; found: %s", x.String())
				}
				switch {
				case n == 0:
					wc.w0 = true
				case n > 1:
					wc.unsatisfiable = errs.New(errs.UnsatisfiableWriteConcern, "Not enough data-bearing nodes")
				}
			case bsoncore.TypeString:
				if s := x.StringValue(); s != "majority" {
					wc.unsatisfiable = errs.New(errs.UnknownReplWriteConcern, "Unrecognized write concern mode: %s", s)
				} else {
					majority = true
				}
			default:
				return wc, errs.New(errs.FailedToParse, "w has to be a number or string; found: %s", bsonutil.TypeName(x.Type))
			}
		case "j":
			b, err := argBool("writeConcern", "j", x)
			if err != nil {
				return wc, err
			}
			wc.journal = b
			jFalse = !b
		case "fsync":
			b, err := argBool("writeConcern", "fsync", x)
			if err != nil {
				return wc, err
			}
			wc.journal = wc.journal || b
		case "wtimeout", "wtimeoutMS", "provenance", "getLastError":
		default:
			return wc, errs.New(errs.Location40415, "BSON field 'writeConcern.%s' is an unknown field.", el.Key())
		}
	}
	// writeConcernMajorityJournalDefault is true in MongoDB: w:"majority"
	// is acknowledged only once the write is in the on-disk journal, unless
	// the client asks for j:false.
	if majority && !jFalse {
		wc.journal = true
	}
	if wc.w0 && wc.journal {
		wc.w0 = false
	}
	return wc, nil
}

// appendWriteConcernError adds writeConcernError to a reply builder when
// the write concern could not be satisfied.
func appendWriteConcernError(b *bsoncore.DocumentBuilder, wc writeConcern) {
	if wc.unsatisfiable == nil {
		return
	}
	e := wc.unsatisfiable
	b.AppendDocument("writeConcernError", bsoncore.NewDocumentBuilder().
		AppendInt32("code", int32(e.Code)).
		AppendString("codeName", e.Code.Name()).
		AppendString("errmsg", e.Msg).
		AppendDocument("errInfo", bsoncore.NewDocumentBuilder().
			AppendDocument("writeConcern", bsoncore.NewDocumentBuilder().Build()).Build()).
		Build())
}

// afterCommand waits for the write concern of a command that takes one
// and does not wait for it itself (command.ownWriteConcern): DDL, user
// and role management, applyOps, aggregate with $out or $merge. As
// mongod's command runner does, it waits whether the command succeeded
// or not: a create answered NamespaceExists, or a createIndexes whose
// index is there already, may be the retry of one whose first attempt
// was not yet durable. With j:true, fsync:true or w:"majority" it waits
// for an fsync covering every commit so far, the command's among them;
// one it cannot satisfy (w > 1) adds writeConcernError to a success.
func (s *Server) afterCommand(ctx context.Context, wc writeConcern, body bsoncore.Document, err error) (bsoncore.Document, error) {
	if wc.journal {
		if serr := s.eng.Sync(ctx); serr != nil && err == nil {
			if ferr := s.eng.Failed(); ferr != nil {
				return nil, ferr
			}
			return nil, errs.New(errs.WriteConcernFailed, "waiting for journal: %v", serr)
		}
	}
	if err != nil || wc.unsatisfiable == nil {
		return body, err
	}
	b := bsoncore.NewDocumentBuilder()
	if len(body) > 5 {
		elems, _ := body.Elements()
		for _, el := range elems {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}
