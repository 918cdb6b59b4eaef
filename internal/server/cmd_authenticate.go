package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdAuthenticate, anyone(), "authenticate").inAPIV1())
}

// cmdAuthenticate is mongod's authenticate command, which serves only
// the MONGODB-X509 mechanism (SCRAM goes through saslStart). Lode has no
// x.509 authentication, so every mechanism is unavailable.
func cmdAuthenticate(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	mech := ""
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "mechanism":
			s, err := argString(req.Name, k, v)
			mech = s
			return true, err
		case "user", "db":
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if mech == "" {
		return nil, errs.New(errs.BadValue, "Auth mechanism not specified")
	}
	if mech == "MONGODB-X509" {
		return nil, errs.New(errs.MechanismUnavailable, "MONGODB-X509 authentication is not supported by Lode: use SCRAM-SHA-256 or SCRAM-SHA-1")
	}
	return nil, errs.New(errs.MechanismUnavailable, "Received authentication for mechanism %s which is not enabled", mech)
}
