package auth

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// Where mongod keeps users and user-defined roles.
const (
	usersColl = "system.users"
	rolesColl = "system.roles"
)

// RoleName is a role on a database, {role, db}.
type RoleName struct{ Role, DB string }

func (r RoleName) String() string { return r.Role + "@" + r.DB }

// User is one user document of admin.system.users.
type User struct {
	Name, DB   string
	UserID     [16]byte
	Creds      map[string]Credential // by mechanism
	Roles      []RoleName
	CustomData bsoncore.Document // nil: none
}

// ID is the user's _id, "db.name".
func (u *User) ID() string { return u.DB + "." + u.Name }

// Mechanisms lists the user's SCRAM mechanisms, sorted.
func (u *User) Mechanisms() []string {
	out := make([]string, 0, len(u.Creds))
	for m := range u.Creds {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Role is one user-defined role of admin.system.roles.
type Role struct {
	Name, DB   string
	Privileges []Privilege
	Roles      []RoleName
}

// ID is the role's _id, "db.name".
func (r *Role) ID() string { return r.DB + "." + r.Name }

// Store reads and writes users and roles in the engine, and resolves a
// user's privileges. Every change bumps Generation, so connections know
// to resolve again: a revoked role stops working on open connections too.
type Store struct {
	eng *engine.Engine
	gen atomic.Uint64

	mu       sync.Mutex
	hasUsers int8 // 0 unknown, 1 yes, -1 no

	// umc serializes the role commands' read-modify-write cycles, as
	// mongod's user management commands take one lock.
	umc sync.Mutex
}

// NewStore returns the store of eng's users and roles.
func NewStore(eng *engine.Engine) *Store { return &Store{eng: eng} }

// Generation changes whenever a user or role changes.
func (s *Store) Generation() uint64 { return s.gen.Load() }

func (s *Store) changed() {
	s.gen.Add(1)
	s.mu.Lock()
	s.hasUsers = 0
	s.mu.Unlock()
}

// HasUsers reports whether any user exists (the localhost exception
// applies while none does).
func (s *Store) HasUsers(ctx context.Context) (bool, error) {
	s.mu.Lock()
	h := s.hasUsers
	s.mu.Unlock()
	if h != 0 {
		return h > 0, nil
	}
	gen := s.gen.Load()
	n, err := s.countUsers(ctx)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	// A user created while the count ran would leave a stale "none":
	// cache only what no change has overtaken.
	if s.gen.Load() == gen {
		s.hasUsers = -1
		if n > 0 {
			s.hasUsers = 1
		}
	}
	s.mu.Unlock()
	return n > 0, nil
}

// idFilter is {_id: id}.
func idFilter(id string) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendString("_id", id).Build()
}

// findDocs returns the documents of admin.<coll> matching filter.
func (s *Store) findDocs(ctx context.Context, coll string, filter bsoncore.Document) ([]bsoncore.Document, error) {
	it, err := s.eng.Find(ctx, "admin", coll, engine.FindSpec{Filter: filter, Sort: bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()})
	if err != nil {
		return nil, fmt.Errorf("read admin.%s: %w", coll, err)
	}
	defer it.Close()
	var out []bsoncore.Document
	for {
		d, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("read admin.%s: %w", coll, err)
		}
		if d == nil {
			return out, nil
		}
		out = append(out, append(bsoncore.Document(nil), d...))
	}
}

// loadOne reads the document "db.name" of admin.<coll>, or nil.
func loadOne[T any](ctx context.Context, s *Store, coll, name, db string, parse func(bsoncore.Document) (*T, error)) (*T, error) {
	docs, err := s.findDocs(ctx, coll, idFilter(db+"."+name))
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return parse(docs[0])
}

// loadAll reads the documents of admin.<coll> for db ("" for every
// database), sorted by _id.
func loadAll[T any](ctx context.Context, s *Store, coll, db string, parse func(bsoncore.Document) (*T, error)) ([]*T, error) {
	var filter bsoncore.Document
	if db != "" {
		filter = bsoncore.NewDocumentBuilder().AppendString("db", db).Build()
	}
	docs, err := s.findDocs(ctx, coll, filter)
	if err != nil {
		return nil, err
	}
	out := make([]*T, 0, len(docs))
	for _, d := range docs {
		x, err := parse(d)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// User returns name@db, or nil when there is no such user.
func (s *Store) User(ctx context.Context, name, db string) (*User, error) {
	return loadOne(ctx, s, usersColl, name, db, parseUser)
}

// Users returns the users of db ("" for every database), sorted by _id.
func (s *Store) Users(ctx context.Context, db string) ([]*User, error) {
	return loadAll(ctx, s, usersColl, db, parseUser)
}

// NewUserID returns a random version 4 UUID for a new user.
func NewUserID() [16]byte {
	var id [16]byte
	_, _ = rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

// CreateUser inserts u; an existing user is mongod's 51003.
func (s *Store) CreateUser(ctx context.Context, u *User) error {
	if err := s.checkRoles(ctx, u.Roles); err != nil {
		return err
	}
	return s.insertNew(ctx, usersColl, u.doc(), func() error {
		return errs.New(errs.Location51003, "User \"%s@%s\" already exists", u.Name, u.DB)
	})
}

// insertNew inserts doc into admin.<coll>, creating the collection if
// needed; a duplicate _id is exists().
func (s *Store) insertNew(ctx context.Context, coll string, doc bsoncore.Document, exists func() error) error {
	if err := s.eng.EnsureSystemCollection("admin", coll); err != nil {
		return fmt.Errorf("create admin.%s: %w", coll, err)
	}
	res, err := s.eng.Insert(ctx, "admin", coll, []bsoncore.Document{doc}, engine.WriteOptions{Ordered: true, Journal: true, System: true})
	if err != nil {
		return fmt.Errorf("insert into admin.%s: %w", coll, err)
	}
	if len(res.WriteErrors) > 0 {
		if res.WriteErrors[0].Err.Code == errs.DuplicateKey {
			return exists()
		}
		return res.WriteErrors[0].Err
	}
	s.changed()
	return nil
}

// ReplaceUser writes u over the stored user of the same _id.
func (s *Store) ReplaceUser(ctx context.Context, u *User) error {
	if err := s.checkRoles(ctx, u.Roles); err != nil {
		return err
	}
	return s.replace(ctx, usersColl, u.ID(), u.doc(), func() error {
		return errs.New(errs.UserNotFound, "User %s@%s not found", u.Name, u.DB)
	})
}

func (s *Store) replace(ctx context.Context, coll, id string, doc bsoncore.Document, notFound func() error) error {
	res, err := s.eng.Update(ctx, "admin", coll, []engine.UpdateSpec{{Filter: idFilter(id), Update: bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc}}},
		engine.WriteOptions{Ordered: true, Journal: true, System: true})
	if err != nil {
		return fmt.Errorf("update admin.%s: %w", coll, err)
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	s.changed()
	if res.N == 0 {
		return notFound()
	}
	return nil
}

// DropUsers removes the users matching filter and returns how many.
func (s *Store) DropUsers(ctx context.Context, filter bsoncore.Document) (int, error) {
	return s.drop(ctx, usersColl, filter)
}

func (s *Store) drop(ctx context.Context, coll string, filter bsoncore.Document) (int, error) {
	res, err := s.eng.Delete(ctx, "admin", coll, []engine.DeleteSpec{{Filter: filter}}, engine.WriteOptions{Ordered: true, Journal: true, System: true})
	if err != nil {
		return 0, fmt.Errorf("delete from admin.%s: %w", coll, err)
	}
	if len(res.WriteErrors) > 0 {
		return 0, res.WriteErrors[0].Err
	}
	s.changed()
	return res.N, nil
}

// Role returns the user-defined role name@db, or nil.
func (s *Store) Role(ctx context.Context, name, db string) (*Role, error) {
	return loadOne(ctx, s, rolesColl, name, db, parseRole)
}

// Roles returns the user-defined roles of db ("" for all).
func (s *Store) Roles(ctx context.Context, db string) ([]*Role, error) {
	return loadAll(ctx, s, rolesColl, db, parseRole)
}

// checkRoles fails with RoleNotFound (31) naming every role of rs that
// is neither built-in nor stored, as mongod's rolesExist.
func (s *Store) checkRoles(ctx context.Context, rs []RoleName) error {
	var missing []RoleName
	for _, r := range rs {
		if IsBuiltinRole(r.Role, r.DB) {
			continue
		}
		got, err := s.Role(ctx, r.Role, r.DB)
		if err != nil {
			return err
		}
		if got == nil {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, r := range missing {
		names[i] = r.String()
	}
	plural := ""
	if len(missing) > 1 {
		plural = "s"
	}
	return errs.New(errs.RoleNotFound, "Could not find role%s: %s", plural, strings.Join(names, ", "))
}

// walkRoles visits rs and every role they inherit, each once: custom is
// the stored role for a user-defined one, nil for a built-in or unknown
// (dropped) one.
func (s *Store) walkRoles(ctx context.Context, rs []RoleName, visit func(r RoleName, custom *Role) error) error {
	seen := map[RoleName]bool{}
	var walk func(rs []RoleName) error
	walk = func(rs []RoleName) error {
		for _, r := range rs {
			if seen[r] {
				continue
			}
			seen[r] = true
			var custom *Role
			if !IsBuiltinRole(r.Role, r.DB) {
				var err error
				if custom, err = s.Role(ctx, r.Role, r.DB); err != nil {
					return err
				}
			}
			if err := visit(r, custom); err != nil {
				return err
			}
			if custom != nil {
				if err := walk(custom.Roles); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(rs)
}

// Privileges resolves the privileges of a set of roles, through the roles
// they inherit. Unknown roles grant nothing (a dropped role).
func (s *Store) Privileges(ctx context.Context, rs []RoleName) ([]Privilege, error) {
	var out []Privilege
	err := s.walkRoles(ctx, rs, func(r RoleName, custom *Role) error {
		if ps, ok := BuiltinPrivileges(r.Role, r.DB); ok {
			out = append(out, ps...)
		} else if custom != nil {
			out = append(out, custom.Privileges...)
		}
		return nil
	})
	return out, err
}

// InheritedRoles returns every role rs grant, directly or through
// inheritance, sorted.
func (s *Store) InheritedRoles(ctx context.Context, rs []RoleName) ([]RoleName, error) {
	var out []RoleName
	err := s.walkRoles(ctx, rs, func(r RoleName, _ *Role) error {
		out = append(out, r)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, err
}
