package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

func init() {
	register(admin(cmdUsersInfo, authzRule{needs: usersInfoNeeds, waived: asksAboutSelf}, "usersInfo"))
}

// cmdUsersInfo lists users: usersInfo: 1 (the database's), a name, a
// {user, db} document or an array of them, or {forAllDBs: true}; with
// showCredentials and showPrivileges as mongod.
func cmdUsersInfo(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	var showCreds, showPrivs, showRestrict bool
	showCustom := true
	var filter *query.Filter
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "showCredentials":
			showCreds, err = argBool(req.Name, k, v)
		case "showPrivileges":
			showPrivs, err = argBool(req.Name, k, v)
		case "showAuthenticationRestrictions":
			// Lode users have no restrictions: each shows an empty list.
			showRestrict, err = argBool(req.Name, k, v)
		case "showCustomData":
			showCustom, err = argBool(req.Name, k, v)
		case "filter":
			// A query on the listed user documents.
			var d bsoncore.Document
			if d, err = argDoc(req.Name, k, v); err == nil {
				filter, err = query.Parse(d)
			}
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	var users []*auth.User
	v := req.Cmd.Lookup("usersInfo")
	addNamed := func(name, db string) error {
		u, err := s.users.User(ctx, name, db)
		if u != nil {
			users = append(users, u)
		}
		return err
	}
	switch v.Type {
	case bsoncore.TypeString:
		err = addNamed(v.StringValue(), req.DB)
	case bsoncore.TypeEmbeddedDocument:
		d := v.Document()
		if b, ok := d.Lookup("forAllDBs").BooleanOK(); ok && b {
			users, err = s.users.Users(ctx, "")
		} else {
			name, _ := d.Lookup("user").StringValueOK()
			db, _ := d.Lookup("db").StringValueOK()
			err = addNamed(name, db)
		}
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		for _, e := range vals {
			if s, ok := e.StringValueOK(); ok {
				err = addNamed(s, req.DB)
			} else if d, ok := e.DocumentOK(); ok {
				name, _ := d.Lookup("user").StringValueOK()
				db, _ := d.Lookup("db").StringValueOK()
				err = addNamed(name, db)
			}
			if err != nil {
				break
			}
		}
	default:
		if _, ok := v.AsInt64OK(); !ok {
			return nil, errs.New(errs.BadValue, "User and role names must be either strings or objects")
		}
		users, err = s.users.Users(ctx, req.DB)
	}
	if err != nil {
		return nil, err
	}
	arr := bsoncore.NewArrayBuilder()
	for _, u := range users {
		doc, err := s.userInfoDoc(ctx, u, showCreds, showPrivs)
		if err != nil {
			return nil, err
		}
		doc = userInfoOptions(doc, showCustom, showRestrict, showPrivs)
		if filter != nil && !filter.Match(doc) {
			continue
		}
		arr.AppendDocument(doc)
	}
	return bsoncore.NewDocumentBuilder().AppendArray("users", arr.Build()).Build(), nil
}

// userInfoDoc is one usersInfo entry: _id, userId, user, db, roles,
// mechanisms, customData, and on request credentials, inheritedRoles and
// inheritedPrivileges.
func (s *Server) userInfoDoc(ctx context.Context, u *auth.User, showCreds, showPrivs bool) (bsoncore.Document, error) {
	full := u.Doc()
	idx, d := bsoncore.AppendDocumentStart(nil)
	for _, k := range []string{"_id", "userId", "user", "db"} {
		d = bsoncore.AppendValueElement(d, k, full.Lookup(k))
	}
	if showCreds {
		d = bsoncore.AppendValueElement(d, "credentials", full.Lookup("credentials"))
	}
	if u.CustomData != nil {
		d = bsoncore.AppendDocumentElement(d, "customData", u.CustomData)
	}
	d = auth.AppendRoles(d, "roles", u.Roles)
	mechs := bsoncore.NewArrayBuilder()
	for _, m := range u.Mechanisms() {
		mechs.AppendString(m)
	}
	d = bsoncore.AppendArrayElement(d, "mechanisms", mechs.Build())
	if showPrivs {
		inh, err := s.users.InheritedRoles(ctx, u.Roles)
		if err != nil {
			return nil, err
		}
		d = auth.AppendRoles(d, "inheritedRoles", inh)
		privs, err := s.users.Privileges(ctx, u.Roles)
		if err != nil {
			return nil, err
		}
		d = auth.AppendPrivileges(d, "inheritedPrivileges", privs)
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d, nil
}

// userInfoOptions applies showCustomData (false drops customData) and
// showAuthenticationRestrictions (the user's empty list, and with
// showPrivileges the empty inherited one) to a usersInfo entry.
func userInfoOptions(doc bsoncore.Document, showCustom, showRestrict, showPrivs bool) bsoncore.Document {
	if showCustom && !showRestrict {
		return doc
	}
	idx, d := bsoncore.AppendDocumentStart(nil)
	elems, _ := doc.Elements()
	for _, el := range elems {
		if el.Key() == "customData" && !showCustom {
			continue
		}
		d = append(d, el...)
	}
	if showRestrict {
		d = appendEmptyArray(d, "authenticationRestrictions")
		if showPrivs {
			d = appendEmptyArray(d, "inheritedAuthenticationRestrictions")
		}
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d
}
