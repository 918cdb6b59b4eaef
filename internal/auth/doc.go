// Package auth holds Lode's users, roles and privileges, modelled on
// mongod 7.0's: SCRAM-SHA-1 and SCRAM-SHA-256 credentials stored in
// admin.system.users in mongod's document shape (derived with
// github.com/xdg-go/scram, the library the Go driver uses on the client
// side), user-defined roles in admin.system.roles, and mongod's built-in
// roles expanded into privileges: a resource pattern and a set of actions.
//
// The package knows nothing of the wire protocol. The server asks it for
// a user's resolved privileges after authentication and checks each
// command's requirements (internal/server/authz.go) against them.
package auth
