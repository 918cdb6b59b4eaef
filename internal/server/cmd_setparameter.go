package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdSetParameter, requires(clusterNeeds(auth.ActSetParameter)), "setParameter"))
}

// cmdSetParameter changes runtime-settable parameters and reports the
// previous value as "was".
func cmdSetParameter(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "setParameter may only be run against the admin database.")
	}
	pt := s.paramTable()
	b := bsoncore.NewDocumentBuilder()
	n := 0
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if genericArgs[k] {
			return true, nil
		}
		pr, ok := pt.lookup(k)
		if !ok {
			return true, errs.New(errs.InvalidOptions, "attempted to set unrecognized parameter [%s], use help:true to see options ", k)
		}
		if pr.set == nil {
			return true, errs.New(errs.IllegalOperation, "not allowed to change [%s] at runtime", k)
		}
		if n == 0 {
			b.AppendValue("was", pr.get())
		}
		n++
		return true, pr.set(v)
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errs.New(errs.NoSuchKey, "no option found to set, use help:true to see options ")
	}
	return b.Build(), nil
}
