package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// sessionIDs reads the array of lsid documents that endSessions,
// refreshSessions and killSessions take as their first field.
func sessionIDs(req *Request) ([]string, error) {
	v := req.Cmd.Index(0).Value()
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, wrongType(req.Name, req.Name, v, "array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid array: %v", err)
	}
	out := make([]string, 0, len(vals))
	for _, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field '%s' elements must be objects, found %s", req.Name, bsonutil.TypeName(x.Type))
		}
		k, err := sessionKey(d)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// ignoreArgs rejects unknown fields: these commands take only their
// first field and generic arguments.
func ignoreArgs(req *Request) error {
	return eachArg(req, func(string, bsoncore.Value) (bool, error) { return false, nil })
}
