package server

import (
	"github.com/lodedb/lode/internal/auth"
)

// bypassNeeds adds, when the command sets bypassDocumentValidation: true,
// the bypassDocumentValidation action on every namespace it writes (the
// needs that hold insert or update), as mongod requires: readWrite alone
// may not skip a validator.
func bypassNeeds(f func(req *Request) ([]need, error)) func(req *Request) ([]need, error) {
	return func(req *Request) ([]need, error) {
		needs, err := f(req)
		if err != nil {
			return nil, err
		}
		if b, ok := req.Cmd.Lookup("bypassDocumentValidation").BooleanOK(); !ok || !b {
			return needs, nil
		}
		for i := range needs {
			if needs[i].acts.Has(auth.ActInsert) || needs[i].acts.Has(auth.ActUpdate) {
				needs[i].acts.Add(auth.ActBypassDocumentValidation)
			}
		}
		return needs, nil
	}
}
