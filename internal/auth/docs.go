package auth

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// doc renders the user as mongod stores it in admin.system.users.
func (u *User) doc() bsoncore.Document { return u.Doc() }

// Doc renders the user as mongod stores it in admin.system.users.
func (u *User) Doc() bsoncore.Document {
	idx, d := bsoncore.AppendDocumentStart(nil)
	d = bsoncore.AppendStringElement(d, "_id", u.ID())
	d = bsoncore.AppendBinaryElement(d, "userId", 4, u.UserID[:])
	d = bsoncore.AppendStringElement(d, "user", u.Name)
	d = bsoncore.AppendStringElement(d, "db", u.DB)
	cidx, d := bsoncore.AppendDocumentElementStart(d, "credentials")
	for _, m := range u.Mechanisms() {
		d = bsoncore.AppendHeader(d, bsoncore.TypeEmbeddedDocument, m)
		d = u.Creds[m].appendDoc(d)
	}
	d, _ = bsoncore.AppendDocumentEnd(d, cidx)
	d = AppendRoles(d, "roles", u.Roles)
	if u.CustomData != nil {
		d = bsoncore.AppendDocumentElement(d, "customData", u.CustomData)
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d
}

// AppendRoles appends an array of {role, db} documents.
func AppendRoles(dst []byte, key string, rs []RoleName) []byte {
	aidx, dst := bsoncore.AppendArrayElementStart(dst, key)
	for i, r := range rs {
		dst = bsoncore.AppendDocumentElement(dst, fmt.Sprint(i), bsoncore.NewDocumentBuilder().
			AppendString("role", r.Role).AppendString("db", r.DB).Build())
	}
	dst, _ = bsoncore.AppendArrayEnd(dst, aidx)
	return dst
}

func parseUser(d bsoncore.Document) (*User, error) {
	u := &User{Creds: map[string]Credential{}}
	var ok bool
	if u.Name, ok = d.Lookup("user").StringValueOK(); !ok {
		return nil, fmt.Errorf("user document without user: %s", d)
	}
	if u.DB, ok = d.Lookup("db").StringValueOK(); !ok {
		return nil, fmt.Errorf("user document without db: %s", d)
	}
	if _, id, ok := d.Lookup("userId").BinaryOK(); ok && len(id) == 16 {
		copy(u.UserID[:], id)
	}
	if creds, ok := d.Lookup("credentials").DocumentOK(); ok {
		els, _ := creds.Elements()
		for _, el := range els {
			cd, ok := el.Value().DocumentOK()
			if !ok {
				continue
			}
			c, err := parseCredential(cd)
			if err != nil {
				return nil, fmt.Errorf("user %s@%s: %w", u.Name, u.DB, err)
			}
			u.Creds[el.Key()] = c
		}
	}
	rs, err := ParseRoles(d.Lookup("roles"), u.DB)
	if err != nil {
		return nil, fmt.Errorf("user %s@%s: %w", u.Name, u.DB, err)
	}
	u.Roles = rs
	if cd, ok := d.Lookup("customData").DocumentOK(); ok {
		u.CustomData = cd
	}
	return u, nil
}

// ParseRoles reads a roles array: each element a role name (on defDB) or
// a {role, db} document, as createUser and grantRolesToUser take them.
func ParseRoles(v bsoncore.Value, defDB string) ([]RoleName, error) {
	if v.Type == 0 {
		return nil, nil
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.BadValue, "roles must be an array, not %s", v.Type)
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errs.New(errs.BadValue, "roles: %v", err)
	}
	out := make([]RoleName, 0, len(vals))
	for _, rv := range vals {
		switch rv.Type {
		case bsoncore.TypeString:
			out = append(out, RoleName{rv.StringValue(), defDB})
		case bsoncore.TypeEmbeddedDocument:
			rd := rv.Document()
			role, ok1 := rd.Lookup("role").StringValueOK()
			db, ok2 := rd.Lookup("db").StringValueOK()
			if !ok1 {
				return nil, errs.New(errs.NoSuchKey, "Missing expected field \"role\"")
			}
			if !ok2 {
				return nil, errs.New(errs.NoSuchKey, "Missing expected field \"db\"")
			}
			out = append(out, RoleName{role, db})
		default:
			return nil, errs.New(errs.BadValue, "Role names must be either strings or objects")
		}
	}
	return out, nil
}

// doc renders the role as mongod stores it in admin.system.roles.
func (r *Role) doc() bsoncore.Document {
	idx, d := bsoncore.AppendDocumentStart(nil)
	d = bsoncore.AppendStringElement(d, "_id", r.ID())
	d = bsoncore.AppendStringElement(d, "role", r.Name)
	d = bsoncore.AppendStringElement(d, "db", r.DB)
	d = AppendPrivileges(d, "privileges", r.Privileges)
	d = AppendRoles(d, "roles", r.Roles)
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d
}

func parseRole(d bsoncore.Document) (*Role, error) {
	r := &Role{}
	var ok bool
	if r.Name, ok = d.Lookup("role").StringValueOK(); !ok {
		return nil, fmt.Errorf("role document without role: %s", d)
	}
	if r.DB, ok = d.Lookup("db").StringValueOK(); !ok {
		return nil, fmt.Errorf("role document without db: %s", d)
	}
	ps, err := ParsePrivileges(d.Lookup("privileges"))
	if err != nil {
		return nil, fmt.Errorf("role %s@%s: %w", r.Name, r.DB, err)
	}
	r.Privileges = ps
	if r.Roles, err = ParseRoles(d.Lookup("roles"), r.DB); err != nil {
		return nil, fmt.Errorf("role %s@%s: %w", r.Name, r.DB, err)
	}
	return r, nil
}

// AppendPrivileges appends an array of {resource, actions} documents.
func AppendPrivileges(dst []byte, key string, ps []Privilege) []byte {
	aidx, dst := bsoncore.AppendArrayElementStart(dst, key)
	for i, p := range ps {
		pidx, d := bsoncore.AppendDocumentElementStart(dst, fmt.Sprint(i))
		d = bsoncore.AppendDocumentElement(d, "resource", p.Resource.doc())
		acts := bsoncore.NewArrayBuilder()
		for _, n := range p.Actions.Names() {
			acts.AppendString(n)
		}
		d = bsoncore.AppendArrayElement(d, "actions", acts.Build())
		dst, _ = bsoncore.AppendDocumentEnd(d, pidx)
	}
	dst, _ = bsoncore.AppendArrayEnd(dst, aidx)
	return dst
}

// doc renders a resource pattern as privilege documents write it.
func (p Pattern) doc() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	switch p.Kind {
	case PatternCluster:
		b.AppendBoolean("cluster", true)
	case PatternAnyResource:
		b.AppendBoolean("anyResource", true)
	default:
		b.AppendString("db", p.DB).AppendString("collection", p.Coll)
	}
	return b.Build()
}

// ParsePrivileges reads a privileges array of createRole and
// grantPrivilegesToRole.
func ParsePrivileges(v bsoncore.Value) ([]Privilege, error) {
	if v.Type == 0 {
		return nil, nil
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.BadValue, "privileges must be an array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errs.New(errs.BadValue, "privileges: %v", err)
	}
	out := make([]Privilege, 0, len(vals))
	for _, pv := range vals {
		pd, ok := pv.DocumentOK()
		if !ok {
			return nil, errs.New(errs.BadValue, "Each element of privileges must be an object")
		}
		rd, ok := pd.Lookup("resource").DocumentOK()
		if !ok {
			return nil, errs.New(errs.FailedToParse, "Privilege document must have a \"resource\" field that is an object")
		}
		pat, err := parsePattern(rd)
		if err != nil {
			return nil, err
		}
		av, ok := pd.Lookup("actions").ArrayOK()
		if !ok {
			return nil, errs.New(errs.FailedToParse, "Privilege document must have an \"actions\" field that is an array")
		}
		avs, _ := av.Values()
		var set ActionSet
		for _, a := range avs {
			name, ok := a.StringValueOK()
			if !ok {
				return nil, errs.New(errs.FailedToParse, "actions must be strings")
			}
			act, ok := ParseAction(name)
			if !ok {
				return nil, errs.New(errs.FailedToParse, "Unrecognized action privilege string: %s", name)
			}
			set.Add(act)
		}
		out = append(out, Privilege{Resource: pat, Actions: set})
	}
	return out, nil
}

func parsePattern(rd bsoncore.Document) (Pattern, error) {
	if v, ok := rd.Lookup("cluster").BooleanOK(); ok && v {
		return Pattern{Kind: PatternCluster}, nil
	}
	if v, ok := rd.Lookup("anyResource").BooleanOK(); ok && v {
		return Pattern{Kind: PatternAnyResource}, nil
	}
	db, ok1 := rd.Lookup("db").StringValueOK()
	coll, ok2 := rd.Lookup("collection").StringValueOK()
	if !ok1 || !ok2 {
		return Pattern{}, errs.New(errs.BadValue, "resource pattern must contain 'collection' and 'db' fields, or 'cluster', or 'anyResource': %s", rd)
	}
	switch {
	case db != "" && coll != "":
		return Pattern{Kind: PatternCollection, DB: db, Coll: coll}, nil
	case db != "":
		return Pattern{Kind: PatternDB, DB: db}, nil
	case coll != "":
		return Pattern{Kind: PatternCollAnyDB, Coll: coll}, nil
	}
	return Pattern{Kind: PatternAnyNormal}, nil
}
