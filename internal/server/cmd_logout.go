package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdLogout, anyone(), "logout"))
}

// cmdLogout ends the connection's authentication if its user belongs to
// the command's database, as mongod's logoutDatabase does.
func cmdLogout(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	if c := req.conn; c != nil {
		c.authn.mu.Lock()
		if g := c.authn.grants; g != nil && g.User.DB == req.DB {
			c.authn.grants = nil
		}
		c.authn.conv = nil
		c.authn.mu.Unlock()
	}
	return nil, nil
}
