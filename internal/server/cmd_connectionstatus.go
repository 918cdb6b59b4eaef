package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdConnectionStatus, anyone(), "connectionStatus"))
}

// cmdConnectionStatus reports the connection's authenticated user, its
// roles (with inherited ones) and, with showPrivileges, its privileges.
func cmdConnectionStatus(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
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
	var g *auth.Grants
	if req.conn != nil {
		var err error
		if g, err = req.conn.grants(ctx); err != nil {
			return nil, err
		}
	}
	users := bsoncore.NewArrayBuilder()
	var roles []auth.RoleName
	if g != nil {
		users.AppendDocument(bsoncore.NewDocumentBuilder().AppendString("user", g.User.Name).AppendString("db", g.User.DB).Build())
		var err error
		if roles, err = s.users.InheritedRoles(ctx, g.Roles); err != nil {
			return nil, err
		}
	}
	idx, d := bsoncore.AppendDocumentStart(nil)
	d = bsoncore.AppendArrayElement(d, "authenticatedUsers", users.Build())
	d = auth.AppendRoles(d, "authenticatedUserRoles", roles)
	if showPriv {
		var privs []auth.Privilege
		if g != nil {
			privs = g.Privs
		}
		d = auth.AppendPrivileges(d, "authenticatedUserPrivileges", privs)
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return bsoncore.NewDocumentBuilder().AppendDocument("authInfo", d).Build(), nil
}
