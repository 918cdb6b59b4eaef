package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdGetParameter, requires(clusterNeeds(auth.ActGetParameter)), "getParameter"))
}

// cmdGetParameter returns server parameters: named ones, or all with '*'.
func cmdGetParameter(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "getParameter may only be run against the admin database.")
	}
	pt := s.paramTable()
	b := bsoncore.NewDocumentBuilder()
	first := req.Cmd.Index(0).Value()
	if str, ok := first.StringValueOK(); ok && str == "*" {
		for _, n := range pt.names() {
			pr, _ := pt.lookup(n)
			b.AppendValue(n, pr.get())
		}
		return b.Build(), nil
	}
	found := 0
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if genericArgs[k] {
			return true, nil
		}
		pr, ok := pt.lookup(k)
		if !ok {
			return true, nil
		}
		b.AppendValue(k, pr.get())
		found++
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if found == 0 {
		return nil, errs.New(errs.InvalidOptions, "no option found to get")
	}
	return b.Build(), nil
}
