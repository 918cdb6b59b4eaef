package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdConnectionStatus, "connectionStatus") }

// cmdConnectionStatus reports the connection's authentication state. Lode
// has no authentication yet, so no user is ever authenticated.
func cmdConnectionStatus(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	showPriv := false
	if err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if k == "showPrivileges" {
			var err error
			showPriv, err = argBool(req.Name, k, v)
			return true, err
		}
		return false, nil
	}); err != nil {
		return nil, err
	}
	empty := bsoncore.NewArrayBuilder().Build()
	auth := bsoncore.NewDocumentBuilder().
		AppendArray("authenticatedUsers", empty).
		AppendArray("authenticatedUserRoles", empty)
	if showPriv {
		auth.AppendArray("authenticatedUserPrivileges", empty)
	}
	return bsoncore.NewDocumentBuilder().AppendDocument("authInfo", auth.Build()).Build(), nil
}
