package server

import (
	"context"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/wire"
)

func init() {
	register(admin(cmdHello, anyone(), "hello").inAPIV1().servedOnFailure())
	// mongod's isMaster is a command of its own, outside API Version 1.
	register(admin(cmdHello, anyone(), "isMaster", "ismaster").servedOnFailure().formOf("hello"))
}

// cmdHello answers the handshake: hello, and the legacy isMaster.
func cmdHello(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	helloOk := false
	var client, specAuth bsoncore.Document
	var supportedMechsFor string
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "helloOk":
			helloOk, _ = argBool(req.Name, k, v)
		case "client":
			d, err := argDoc(req.Name, k, v)
			if err != nil {
				return true, err
			}
			client = d
		case "speculativeAuthenticate":
			d, err := argDoc(req.Name, k, v)
			if err != nil {
				return true, err
			}
			specAuth = d
		case "saslSupportedMechs":
			name, err := argString(req.Name, k, v)
			if err != nil {
				return true, err
			}
			supportedMechsFor = name
		default:
			// hello is not strict: drivers send fields newer servers
			// understand (backpressure, compression, ...) and older ones ignore.
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if client != nil && req.conn != nil {
		if req.conn.client != nil {
			return nil, errs.New(errs.ClientMetadataCannotBeMutated, "The client metadata document may only be sent in the first hello")
		}
		req.conn.client = client
		req.conn.meta.Store(&client)
	}
	reply := s.helloReply(req, helloOk)
	if supportedMechsFor != "" {
		reply = s.appendSupportedMechs(ctx, reply, supportedMechsFor)
	}
	if specAuth != nil {
		reply = s.appendSpeculativeAuth(ctx, req, reply, specAuth)
	}
	return reply, nil
}

func (s *Server) helloReply(req *Request, helloOk bool) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if helloOk {
		b.AppendBoolean("helloOk", true)
	}
	if req.Name == "hello" {
		b.AppendBoolean("isWritablePrimary", true)
	} else {
		b.AppendBoolean("ismaster", true)
	}
	b.AppendInt32("maxBsonObjectSize", wire.MaxBSONObjectSize).
		AppendInt32("maxMessageSizeBytes", wire.MaxMessageSizeBytes).
		AppendInt32("maxWriteBatchSize", wire.MaxWriteBatchSize).
		AppendDateTime("localTime", time.Now().UnixMilli()).
		AppendInt32("logicalSessionTimeoutMinutes", s.sessionTimeoutMinutes())
	if req.conn != nil {
		// mongod appends the id with appendNumber: an int32 while it fits.
		if id := req.conn.id; id <= math.MaxInt32 {
			b.AppendInt32("connectionId", int32(id))
		} else {
			b.AppendInt64("connectionId", id)
		}
	}
	b.AppendInt32("minWireVersion", 0).
		AppendInt32("maxWireVersion", MaxWireVersion).
		AppendBoolean("readOnly", false)
	if s.replSet() {
		s.appendReplSetHello(b, req) // replset.go
	}
	return b.Build()
}
