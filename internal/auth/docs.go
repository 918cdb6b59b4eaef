package auth

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
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
// a {role, db} document, as createUser, createRole and the grant and
// revoke commands take them. Errors are mongod's RoleName parse errors
// (BadValue); a repeated role is kept once, as mongod de-duplicates.
func ParseRoles(v bsoncore.Value, defDB string) ([]RoleName, error) {
	if v.Type == 0 {
		return nil, nil
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "roles must be an array, not %s", bsonTypeName(v.Type))
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errs.New(errs.BadValue, "roles: %v", err)
	}
	out := make([]RoleName, 0, len(vals))
	for _, rv := range vals {
		r, err := ParseRoleName(rv, defDB)
		if err != nil {
			return nil, err
		}
		if !containsRole(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// ParseRoleName reads one role name: a string (a role of defDB) or a
// {role, db} document.
func ParseRoleName(v bsoncore.Value, defDB string) (RoleName, error) {
	switch v.Type {
	case bsoncore.TypeString:
		return RoleName{v.StringValue(), defDB}, nil
	case bsoncore.TypeEmbeddedDocument:
	default:
		return RoleName{}, errs.New(errs.BadValue, "RoleName must be either a string or an object")
	}
	els, err := v.Document().Elements()
	if err != nil {
		return RoleName{}, errs.New(errs.BadValue, "RoleName: %v", err)
	}
	var r RoleName
	var seenRole, seenDB bool
	for _, el := range els {
		var dst *string
		var seen *bool
		switch el.Key() {
		case "role":
			dst, seen = &r.Role, &seenRole
		case "db":
			dst, seen = &r.DB, &seenDB
		default:
			continue // RoleName is not strict
		}
		s, ok := el.Value().StringValueOK()
		if !ok {
			return RoleName{}, errs.New(errs.BadValue, "RoleName must contain a string field named: %s. But, has type %s", el.Key(), bsonTypeName(el.Value().Type))
		}
		if *seen {
			return RoleName{}, errs.New(errs.BadValue, "RoleName has more than one field named: %s", el.Key())
		}
		*dst, *seen = s, true
	}
	if !seenRole {
		return RoleName{}, errs.New(errs.BadValue, "RoleName must contain a field named: role")
	}
	if !seenDB {
		return RoleName{}, errs.New(errs.BadValue, "RoleName must contain a field named: db")
	}
	return r, nil
}

func containsRole(rs []RoleName, r RoleName) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
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

// ParsePrivileges reads a privileges array of createRole, updateRole,
// grantPrivilegesToRole and revokePrivilegesFromRole as mongod 7.0 does:
// each {resource, actions}; a resource is {cluster: true},
// {anyResource: true} or {db, collection} (either may be "", for any);
// actions are mongod's action names, none unknown (BadValue, listing
// them all), at least one per privilege. Privileges on the same resource
// are merged, as mongod stores them.
func ParsePrivileges(v bsoncore.Value) ([]Privilege, error) {
	if v.Type == 0 {
		return nil, nil
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "privileges must be an array, not %s", bsonTypeName(v.Type))
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errs.New(errs.BadValue, "privileges: %v", err)
	}
	out := make([]Privilege, 0, len(vals))
	var unknown []string
	for i, pv := range vals {
		pd, ok := pv.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field 'privileges.%d' is the wrong type '%s', expected type 'object'", i, bsonTypeName(pv.Type))
		}
		rv, err := pd.LookupErr("resource")
		if err != nil {
			return nil, errs.New(errs.Location40414, "BSON field 'privileges.resource' is missing but a required field")
		}
		rd, ok := rv.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field 'privileges.resource' is the wrong type '%s', expected type 'object'", bsonTypeName(rv.Type))
		}
		pat, err := parsePattern(rd)
		if err != nil {
			return nil, err
		}
		av, err := pd.LookupErr("actions")
		if err != nil {
			return nil, errs.New(errs.Location40414, "BSON field 'privileges.actions' is missing but a required field")
		}
		acts, ok := av.ArrayOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field 'privileges.actions' is the wrong type '%s', expected type 'array'", bsonTypeName(av.Type))
		}
		avs, _ := acts.Values()
		if len(avs) == 0 {
			return nil, errs.New(errs.BadValue, "'actions' field of privilege resource must not be empty")
		}
		var set ActionSet
		for _, a := range avs {
			name, ok := a.StringValueOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "BSON field 'privileges.actions' is the wrong type '%s', expected type 'string'", bsonTypeName(a.Type))
			}
			if act, ok := ParseAction(name); ok {
				set.Add(act)
			} else if !slices.Contains(unknown, name) {
				unknown = append(unknown, name)
			}
		}
		out = append(out, Privilege{Resource: pat, Actions: set})
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		plural := ""
		if len(unknown) > 1 {
			plural = "s"
		}
		return nil, errs.New(errs.BadValue, "Unknown action type%s in privilege set: '%s'", plural, strings.Join(unknown, "', '"))
	}
	return MergePrivileges(nil, out), nil
}

// MergePrivileges adds ps to dst: the actions of a privilege whose
// resource dst already has join that entry, others are appended (mongod's
// addPrivilegeToPrivilegeVector). Empty action sets are dropped.
func MergePrivileges(dst, ps []Privilege) []Privilege {
next:
	for _, p := range ps {
		if p.Actions.Empty() {
			continue
		}
		for i := range dst {
			if dst[i].Resource == p.Resource {
				dst[i].Actions = dst[i].Actions.Union(p.Actions)
				continue next
			}
		}
		dst = append(dst, p)
	}
	return dst
}

// parsePattern reads a privilege's resource document.
func parsePattern(rd bsoncore.Document) (Pattern, error) {
	field := func(k string, t bsoncore.Type) (bsoncore.Value, bool, error) {
		v, err := rd.LookupErr(k)
		if err != nil {
			return v, false, nil
		}
		if v.Type != t {
			want := "string"
			if t == bsoncore.TypeBoolean {
				want = "bool"
			}
			return v, true, errs.New(errs.TypeMismatch, "BSON field 'resource.%s' is the wrong type '%s', expected type '%s'", k, bsonTypeName(v.Type), want)
		}
		return v, true, nil
	}
	cluster, hasCluster, err := field("cluster", bsoncore.TypeBoolean)
	if err != nil {
		return Pattern{}, err
	}
	anyRes, hasAny, err := field("anyResource", bsoncore.TypeBoolean)
	if err != nil {
		return Pattern{}, err
	}
	db, hasDB, err := field("db", bsoncore.TypeString)
	if err != nil {
		return Pattern{}, err
	}
	coll, hasColl, err := field("collection", bsoncore.TypeString)
	if err != nil {
		return Pattern{}, err
	}
	conflict := func(what, with string) error {
		return errs.New(errs.BadValue, "%s conflicts with resource type '%s'", what, with)
	}
	switch {
	case hasCluster:
		if !cluster.Boolean() {
			return Pattern{}, errs.New(errs.BadValue, "resource: {cluster: false} must be true")
		}
		if k := firstOf([]string{"anyResource", "db", "collection"}, hasAny, hasDB, hasColl); k != "" {
			return Pattern{}, conflict("resource: {cluster: true}", k)
		}
		return Pattern{Kind: PatternCluster}, nil
	case hasAny:
		if !anyRes.Boolean() {
			return Pattern{}, errs.New(errs.BadValue, "resource: {anyResource: false} must be true")
		}
		if k := firstOf([]string{"db", "collection"}, hasDB, hasColl); k != "" {
			return Pattern{}, conflict("resource: {anyResource: true}", k)
		}
		return Pattern{Kind: PatternAnyResource}, nil
	case !hasColl:
		return Pattern{}, errs.New(errs.BadValue, "resource pattern must contain 'collection' or 'systemBuckets' specifier")
	case !hasDB:
		return Pattern{}, errs.New(errs.BadValue, "resource {collection: '...'} must include 'db' field as well")
	}
	d, c := db.StringValue(), coll.StringValue()
	switch {
	case d != "" && c != "":
		return Pattern{Kind: PatternCollection, DB: d, Coll: c}, nil
	case d != "":
		return Pattern{Kind: PatternDB, DB: d}, nil
	case c != "":
		return Pattern{Kind: PatternCollAnyDB, Coll: c}, nil
	}
	return Pattern{Kind: PatternAnyNormal}, nil
}

// firstOf returns the first name whose flag is set, or "".
func firstOf(names []string, flags ...bool) string {
	for i, f := range flags {
		if f {
			return names[i]
		}
	}
	return ""
}

// bsonTypeName is a BSON type's name as mongod's messages spell it.
func bsonTypeName(t bsoncore.Type) string { return bsonutil.TypeName(t) }
