package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdWhatsMyURI, anyone(), "whatsmyuri"))
}

// cmdWhatsMyURI reports the client's address as the server sees it.
func cmdWhatsMyURI(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	you := ""
	if req.conn != nil {
		you = req.conn.nc.RemoteAddr().String()
	}
	return bsoncore.NewDocumentBuilder().AppendString("you", you).Build(), nil
}
