package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// refuseUnhonouredCreateOptions checks the create options that mongod
// 7.0's IDL accepts and whose meaning Lode cannot give: each is refused
// with NotImplemented when it asks for something other than the
// default, rather than accepted and silently ignored. A default-valued
// one (autoIndexId: true, temp: false) is
// accepted.
func refuseUnhonouredCreateOptions(req *Request) error {
	return eachCmdField(req, func(k string, v bsoncore.Value) error {
		switch k {
		case "autoIndexId":
			on, err := argBool(req.Name, k, v)
			if err == nil && !on {
				err = errs.New(errs.NotImplemented, "create with autoIndexId: false is not supported: every Lode collection has an _id index")
			}
			return err
		case "expireAfterSeconds":
			// mongod accepts it only with clusteredIndex (parsed by
			// cmdCreate); without one its error is InvalidOptions.
			if c, err := req.Cmd.LookupErr("clusteredIndex"); err != nil || c.Type == bsoncore.TypeBoolean && !c.Boolean() {
				return errs.New(errs.InvalidOptions, "'expireAfterSeconds' requires clustering to be enabled")
			}
		case "temp":
			on, err := argBool(req.Name, k, v)
			if err == nil && on {
				err = errs.New(errs.NotImplemented, "create with temp: true is not supported: Lode does not drop temporary collections at restart")
			}
			return err
		}
		return nil
	})
}

// eachCmdField calls fn for every field of the command after its name.
func eachCmdField(req *Request, fn func(k string, v bsoncore.Value) error) error {
	elems, err := req.Cmd.Elements()
	if err != nil {
		return commandDocErr(err)
	}
	for i, el := range elems {
		if i == 0 { // the command name
			continue
		}
		if err := fn(el.Key(), el.Value()); err != nil {
			return err
		}
	}
	return nil
}

// checkCollectionUUID fails with CollectionUUIDMismatch unless db.coll
// exists with the UUID want (a command's collectionUUID).
func (s *Server) checkCollectionUUID(db, coll string, want bsoncore.Value) error {
	_, data := want.Binary()
	infos, err := s.eng.ListCollections(db)
	if err != nil {
		return err
	}
	for _, ci := range infos {
		if ci.Name == coll && string(ci.UUID[:]) == string(data) {
			return nil
		}
	}
	return errs.New(errs.CollectionUUIDMismatch, "Collection UUID %s does not match that of the collection %s.%s", want.String(), db, coll)
}

// checkBatchUUID applies a write command's collectionUUID.
func (s *Server) checkBatchUUID(db string, b writeBatch) error {
	if b.collectionUUID == nil {
		return nil
	}
	return s.checkCollectionUUID(db, b.coll, *b.collectionUUID)
}
