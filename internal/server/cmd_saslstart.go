package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdSaslStart, anyone(), "saslStart").inAPIV1().redacting("payload"))
}

// saslArgs are the fields of saslStart (and of hello's
// speculativeAuthenticate, which carries a saslStart).
type saslArgs struct {
	mechanism string
	payload   []byte
}

// parseSaslStart reads saslStart's arguments: mechanism, payload (binary
// or string), autoAuthorize and options (skipEmptyExchange) as mongod's
// IDL lists them.
func parseSaslStart(name string, each func(func(k string, v bsoncore.Value) (bool, error)) error) (saslArgs, error) {
	var a saslArgs
	err := each(func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "mechanism":
			s, err := argString(name, k, v)
			a.mechanism = s
			return true, err
		case "payload":
			p, err := saslPayload(name, v)
			a.payload = p
			return true, err
		case "autoAuthorize", "options", "db":
			return true, nil
		}
		return false, nil
	})
	if err == nil && a.mechanism == "" {
		err = errs.New(errs.Location40414, "BSON field '%s.mechanism' is missing but a required field", name)
	}
	return a, err
}

// saslPayload accepts a payload as binary data or a string.
func saslPayload(name string, v bsoncore.Value) ([]byte, error) {
	if _, b, ok := v.BinaryOK(); ok {
		return b, nil
	}
	if s, ok := v.StringValueOK(); ok {
		return []byte(s), nil
	}
	return nil, errs.New(errs.TypeMismatch, "BSON field '%s.payload' is the wrong type '%s', expected types '[string, binData]'", name, bsonutil.TypeName(v.Type))
}

// cmdSaslStart begins a SCRAM-SHA-1 or SCRAM-SHA-256 conversation for a
// user of the command's database.
func cmdSaslStart(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	a, err := parseSaslStart(req.Name, func(fn func(k string, v bsoncore.Value) (bool, error)) error { return eachArg(req, fn) })
	if err != nil {
		return nil, err
	}
	return s.saslStart(ctx, req.conn, req.DB, a.mechanism, a.payload)
}
