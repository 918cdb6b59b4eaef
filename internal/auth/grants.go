package auth

// Grants is an authenticated user's resolved privileges.
type Grants struct {
	User  *User
	Privs []Privilege
	// Roles are the user's direct roles, for connectionStatus.
	Roles []RoleName
}

// Allowed reports whether the privileges cover every action of acts on r:
// the actions of every privilege whose pattern matches r are pooled, as
// mongod's AuthorizationSession does.
func (g *Grants) Allowed(r Resource, acts ActionSet) bool {
	if g == nil {
		return false
	}
	var have ActionSet
	for i := range g.Privs {
		p := &g.Privs[i]
		if p.Resource.Matches(r) {
			have = have.Union(p.Actions)
			if have.Contains(acts) {
				return true
			}
		}
	}
	return false
}

// AnyOnDB reports whether the privileges grant anything on database db
// or one of its collections: listCollections with authorizedCollections,
// and listDatabases with authorizedDatabases, show such databases.
func (g *Grants) AnyOnDB(db string) bool {
	if g == nil {
		return false
	}
	for _, p := range g.Privs {
		switch p.Resource.Kind {
		case PatternAnyResource, PatternAnyNormal, PatternCollAnyDB:
			return true
		case PatternDB, PatternCollection:
			if p.Resource.DB == db {
				return true
			}
		}
	}
	return false
}

// AnyOn reports whether the privileges grant some action on r (mongod's
// isAuthorizedForAnyActionOnResource): listCollections with
// authorizedCollections lists such collections.
func (g *Grants) AnyOn(r Resource) bool {
	if g == nil {
		return false
	}
	for _, p := range g.Privs {
		if !p.Actions.Empty() && p.Resource.Matches(r) {
			return true
		}
	}
	return false
}

// HasRole reports whether r is one of the user's direct roles: mongod
// lets a user see, with rolesInfo, the roles it was granted.
func (g *Grants) HasRole(r RoleName) bool {
	return g != nil && containsRole(g.Roles, r)
}
