package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdSaslContinue, anyone(), "saslContinue").inAPIV1().redacting("payload"))
}

// cmdSaslContinue carries the next client message of a conversation.
func cmdSaslContinue(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	var id int64
	var payload []byte
	haveID := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "conversationId":
			n, err := argInt64(req.Name, k, v)
			id, haveID = n, true
			return true, err
		case "payload":
			p, err := saslPayload(req.Name, v)
			payload = p
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if !haveID {
		return nil, errs.New(errs.Location40414, "BSON field 'saslContinue.conversationId' is missing but a required field")
	}
	if req.conn == nil {
		return nil, errs.New(errs.ProtocolError, "No SASL session state found")
	}
	return s.saslContinue(ctx, req.conn, int32(id), payload)
}
