package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/xdg-go/scram"

	"github.com/lodedb/lode/internal/errs"
)

// Conversation is one SCRAM exchange of saslStart/saslContinue.
type Conversation struct {
	Mechanism string
	DB        string
	conv      *scram.ServerConversation
	user      *User
	lookupErr error
}

// errAuthFailed is mongod's answer to any failed authentication: an
// unknown user and a wrong password are not told apart.
func errAuthFailed() error { return errs.New(errs.AuthenticationFailed, "Authentication failed.") }

// StartSASL begins a SCRAM conversation for a user of db with mechanism.
func (s *Store) StartSASL(ctx context.Context, db, mech string) (*Conversation, error) {
	var hash scram.HashGeneratorFcn
	switch mech {
	case MechSHA1:
		hash = scram.SHA1
	case MechSHA256:
		hash = scram.SHA256
	default:
		return nil, errs.New(errs.MechanismUnavailable, "Received authentication for mechanism %s which is not enabled", mech)
	}
	c := &Conversation{Mechanism: mech, DB: db}
	srv, err := hash.NewServer(func(name string) (scram.StoredCredentials, error) {
		u, err := s.User(ctx, name, db)
		if err != nil {
			c.lookupErr = err
			return scram.StoredCredentials{}, err
		}
		if u == nil {
			return scram.StoredCredentials{}, errors.New("no such user")
		}
		cred, ok := u.Creds[mech]
		if !ok {
			return scram.StoredCredentials{}, errors.New("user has no credential for the mechanism")
		}
		c.user = u
		return cred.stored(), nil
	})
	if err != nil {
		return nil, fmt.Errorf("scram server: %w", err)
	}
	c.conv = srv.NewConversation()
	return c, nil
}

// Step feeds the client's payload and returns the server's. done is set
// once the client is authenticated; the user is then User().
func (c *Conversation) Step(payload []byte) (out []byte, done bool, err error) {
	if c.conv.Done() {
		// The empty exchange that ends a conversation without
		// skipEmptyExchange.
		if c.conv.Valid() {
			return nil, true, nil
		}
		return nil, false, errAuthFailed()
	}
	resp, err := c.conv.Step(string(payload))
	if err != nil {
		if c.lookupErr != nil {
			return nil, false, c.lookupErr
		}
		return nil, false, errAuthFailed()
	}
	return []byte(resp), false, nil
}

// Finished reports whether the exchange has authenticated the client.
func (c *Conversation) Finished() bool { return c.conv.Done() && c.conv.Valid() }

// User is the authenticated user once Finished.
func (c *Conversation) User() *User { return c.user }
