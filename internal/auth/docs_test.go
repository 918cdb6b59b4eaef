package auth

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// val is v as a BSON value.
func val(t *testing.T, v any) bsoncore.Value {
	t.Helper()
	raw, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		t.Fatal(err)
	}
	return bsoncore.Document(raw).Lookup("v")
}

// wantErr checks err's code and that its message holds msg.
func wantErr(t *testing.T, what string, err error, code errs.Code, msg string) {
	t.Helper()
	e := errs.As(err)
	if e == nil || e.Code != code || !strings.Contains(e.Msg, msg) {
		t.Errorf("%s: %v, want code %d with %q", what, err, code, msg)
	}
}

type D = bson.D
type A = bson.A

func res(db, coll string) D { return D{{Key: "db", Value: db}, {Key: "collection", Value: coll}} }

func privDoc(resource any, actions ...any) D {
	return D{{Key: "resource", Value: resource}, {Key: "actions", Value: append(A{}, actions...)}}
}

func TestParseRoles(t *testing.T) {
	got, err := ParseRoles(val(t, A{"read", D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}, "read", D{{Key: "db", Value: "x"}, {Key: "role", Value: "r"}, {Key: "extra", Value: 1}}}), "shop")
	want := []RoleName{{"read", "shop"}, {"root", "admin"}, {"r", "x"}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParseRoles: %v %v, want %v (a repeated role once)", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("role %d: %v, want %v", i, got[i], want[i])
		}
	}
	if rs, err := ParseRoles(bsoncore.Value{}, "shop"); rs != nil || err != nil {
		t.Errorf("missing roles: %v %v", rs, err)
	}
	for _, c := range []struct {
		name string
		v    any
		code errs.Code
		msg  string
	}{
		{"not an array", "read", errs.TypeMismatch, "roles must be an array"},
		{"a number", A{1}, errs.BadValue, "RoleName must be either a string or an object"},
		{"no role", A{D{{Key: "db", Value: "x"}}}, errs.BadValue, "RoleName must contain a field named: role"},
		{"no db", A{D{{Key: "role", Value: "x"}}}, errs.BadValue, "RoleName must contain a field named: db"},
		{"role not a string", A{D{{Key: "role", Value: 1}, {Key: "db", Value: "x"}}}, errs.BadValue, "must contain a string field named: role"},
		{"db twice", A{D{{Key: "role", Value: "r"}, {Key: "db", Value: "x"}, {Key: "db", Value: "y"}}}, errs.BadValue, "more than one field named: db"},
	} {
		_, err := ParseRoles(val(t, c.v), "shop")
		wantErr(t, c.name, err, c.code, c.msg)
	}
}

func TestParsePrivileges(t *testing.T) {
	got, err := ParsePrivileges(val(t, A{
		privDoc(D{{Key: "cluster", Value: true}}, "serverStatus"),
		privDoc(D{{Key: "anyResource", Value: true}}, "validate"),
		privDoc(res("shop", "orders"), "find"),
		privDoc(res("shop", ""), "insert"),
		privDoc(res("", "logs"), "remove"),
		privDoc(res("", ""), "listCollections"),
		privDoc(res("shop", "orders"), "update", "find"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Privilege{
		{cluster, Actions(ActServerStatus)},
		{Pattern{Kind: PatternAnyResource}, Actions(ActValidate)},
		{collPattern("shop", "orders"), Actions(ActFind, ActUpdate)},
		{dbPattern("shop"), Actions(ActInsert)},
		{collAnyDB("logs"), Actions(ActRemove)},
		{anyNormal, Actions(ActListCollections)},
	}
	if len(got) != len(want) {
		t.Fatalf("ParsePrivileges: %+v, want %+v (same resource merged)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("privilege %d: %+v %v, want %+v %v", i, got[i].Resource, got[i].Actions.Names(), want[i].Resource, want[i].Actions.Names())
		}
	}
	for _, c := range []struct {
		name string
		v    any
		code errs.Code
		msg  string
	}{
		{"not an array", D{}, errs.TypeMismatch, "privileges must be an array"},
		{"not a document", A{"find"}, errs.TypeMismatch, "expected type 'object'"},
		{"no resource", A{D{{Key: "actions", Value: A{"find"}}}}, errs.Location40414, "resource' is missing"},
		{"resource not a document", A{privDoc("shop", "find")}, errs.TypeMismatch, "privileges.resource"},
		{"no actions", A{D{{Key: "resource", Value: res("shop", "")}}}, errs.Location40414, "actions' is missing"},
		{"actions not an array", A{D{{Key: "resource", Value: res("shop", "")}, {Key: "actions", Value: "find"}}}, errs.TypeMismatch, "privileges.actions"},
		{"an action not a string", A{privDoc(res("shop", ""), 1)}, errs.TypeMismatch, "privileges.actions"},
		{"empty actions", A{privDoc(res("shop", ""))}, errs.BadValue, "must not be empty"},
		{"unknown action", A{privDoc(res("shop", ""), "find", "fly")}, errs.BadValue, "Unknown action type in privilege set: 'fly'"},
		{"unknown actions, listed once and sorted", A{privDoc(res("shop", ""), "swim", "fly"), privDoc(res("x", ""), "fly")}, errs.BadValue, "Unknown action types in privilege set: 'fly', 'swim'"},
		{"cluster false", A{privDoc(D{{Key: "cluster", Value: false}}, "find")}, errs.BadValue, "{cluster: false} must be true"},
		{"cluster and db", A{privDoc(D{{Key: "cluster", Value: true}, {Key: "db", Value: "x"}}, "find")}, errs.BadValue, "conflicts"},
		{"anyResource false", A{privDoc(D{{Key: "anyResource", Value: false}}, "find")}, errs.BadValue, "{anyResource: false} must be true"},
		{"anyResource and collection", A{privDoc(D{{Key: "anyResource", Value: true}, {Key: "collection", Value: ""}}, "find")}, errs.BadValue, "conflicts"},
		{"db without collection", A{privDoc(D{{Key: "db", Value: "x"}}, "find")}, errs.BadValue, "must contain 'collection'"},
		{"collection without db", A{privDoc(D{{Key: "collection", Value: "x"}}, "find")}, errs.BadValue, "must include 'db'"},
		{"db not a string", A{privDoc(D{{Key: "db", Value: 1}, {Key: "collection", Value: ""}}, "find")}, errs.TypeMismatch, "resource.db"},
		{"cluster not a bool", A{privDoc(D{{Key: "cluster", Value: 1}}, "find")}, errs.TypeMismatch, "resource.cluster"},
	} {
		_, err := ParsePrivileges(val(t, c.v))
		wantErr(t, c.name, err, c.code, c.msg)
	}
}

// TestDocsRoundTrip: users and roles read back as they were written, in
// mongod's document shapes.
func TestDocsRoundTrip(t *testing.T) {
	r := &Role{Name: "r", DB: "shop", Privileges: []Privilege{{collPattern("shop", "o"), Actions(ActFind, ActInsert)}, {dbPattern("shop"), Actions(ActListCollections)}},
		Roles: []RoleName{{"read", "shop"}}}
	doc := r.doc()
	if id := doc.Lookup("_id").StringValue(); id != "shop.r" {
		t.Errorf("role _id %q", id)
	}
	back, err := parseRole(doc)
	if err != nil {
		t.Fatal(err)
	}
	if back.Name != r.Name || back.DB != r.DB || len(back.Privileges) != 2 || back.Privileges[0] != r.Privileges[0] ||
		back.Privileges[1] != r.Privileges[1] || len(back.Roles) != 1 || back.Roles[0] != r.Roles[0] {
		t.Errorf("role round trip: %+v, want %+v", back, r)
	}
	cred, err := NewCredential(MechSHA256, "u", "pw")
	if err != nil {
		t.Fatal(err)
	}
	u := &User{Name: "u", DB: "shop", UserID: NewUserID(), Creds: map[string]Credential{MechSHA256: cred}, Roles: []RoleName{{"r", "shop"}},
		CustomData: bsoncore.NewDocumentBuilder().AppendInt32("n", 1).Build()}
	ub, err := parseUser(u.Doc())
	if err != nil {
		t.Fatal(err)
	}
	if ub.ID() != "shop.u" || ub.UserID != u.UserID || len(ub.Creds) != 1 || len(ub.Roles) != 1 || ub.CustomData.Lookup("n").Int32() != 1 {
		t.Errorf("user round trip: %+v", ub)
	}
	if u.UserID[6]>>4 != 4 || u.UserID[8]>>6 != 2 {
		t.Errorf("userId %x is not a version 4 UUID", u.UserID)
	}
}

func TestMergePrivileges(t *testing.T) {
	got := MergePrivileges([]Privilege{{dbPattern("a"), Actions(ActFind)}},
		[]Privilege{{dbPattern("b"), Actions(ActFind)}, {dbPattern("a"), Actions(ActInsert)}, {dbPattern("c"), ActionSet{}}})
	if len(got) != 2 || got[0].Actions != Actions(ActFind, ActInsert) || got[1].Resource != dbPattern("b") {
		t.Errorf("MergePrivileges: %+v", got)
	}
}
