package server

import (
	"context"
	"net"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/mongolog"
)

// authnState is one connection's authentication: the SCRAM conversation
// in progress and the authenticated user's privileges, resolved again
// when a user or role changes (the store's generation moves).
type authnState struct {
	mu     sync.Mutex
	conv   *auth.Conversation
	convID int32
	grants *auth.Grants
	gen    uint64
}

// user returns the authenticated user's grants, re-resolved if users or
// roles changed since; nil when nobody is authenticated.
func (c *conn) grants(ctx context.Context) (*auth.Grants, error) {
	a := &c.authn
	a.mu.Lock()
	g, gen := a.grants, a.gen
	a.mu.Unlock()
	if g == nil {
		return nil, nil
	}
	cur := c.s.users.Generation()
	if gen == cur {
		return g, nil
	}
	u, err := c.s.users.User(ctx, g.User.Name, g.User.DB)
	if err != nil {
		return nil, err
	}
	if u == nil { // dropped: the connection is no longer authenticated
		a.mu.Lock()
		a.grants = nil
		a.mu.Unlock()
		return nil, nil
	}
	ng, err := c.s.resolveGrants(ctx, u)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.grants, a.gen = ng, cur
	a.mu.Unlock()
	return ng, nil
}

// resolveGrants expands a user's roles into privileges.
func (s *Server) resolveGrants(ctx context.Context, u *auth.User) (*auth.Grants, error) {
	privs, err := s.users.Privileges(ctx, u.Roles)
	if err != nil {
		return nil, err
	}
	return &auth.Grants{User: u, Privs: privs, Roles: u.Roles}, nil
}

// saslStep runs one step of a SCRAM conversation: start (conv == nil)
// or continue. It returns the reply fields.
func (s *Server) saslStart(ctx context.Context, c *conn, db, mech string, payload []byte) (bsoncore.Document, error) {
	if c == nil {
		return nil, errs.New(errs.IllegalOperation, "authentication needs a client connection")
	}
	conv, err := s.users.StartSASL(ctx, db, mech)
	if err != nil {
		return nil, err
	}
	c.authn.mu.Lock()
	c.authn.convID++
	id := c.authn.convID
	c.authn.conv = conv
	c.authn.mu.Unlock()
	return s.saslContinue(ctx, c, id, payload)
}

// saslContinue feeds the next client payload of conversation id.
func (s *Server) saslContinue(ctx context.Context, c *conn, id int32, payload []byte) (bsoncore.Document, error) {
	c.authn.mu.Lock()
	conv := c.authn.conv
	cur := c.authn.convID
	c.authn.mu.Unlock()
	if conv == nil || id != cur {
		return nil, errs.New(errs.ProtocolError, "sasl: no conversation with conversationId %d", id)
	}
	out, done, err := conv.Step(payload)
	if err != nil {
		c.authn.mu.Lock()
		c.authn.conv = nil
		c.authn.mu.Unlock()
		s.log.Info("Authentication failed", mongolog.KeyComponent, "ACCESS", mongolog.KeyID, mongolog.IDAuthFailed,
			mongolog.KeyCtx, "conn"+itoa(c.id), "mechanism", conv.Mechanism, "authenticationDatabase", conv.DB,
			"remote", c.nc.RemoteAddr().String(), "error", errs.As(err).Msg)
		return nil, err
	}
	if conv.Finished() {
		// The server's final message verifies it to the client; the
		// client is authenticated now (skipEmptyExchange), or after the
		// empty exchange that follows.
		u := conv.User()
		c.authn.mu.Lock()
		prev := c.authn.grants
		c.authn.mu.Unlock()
		// MongoDB 6.0+: one user per connection; the same user may
		// authenticate again.
		if prev != nil && prev.User.ID() != u.ID() {
			if prev.User.DB == u.DB {
				return nil, errs.New(errs.Location5626701, "Each client connection may only be authenticated once. Previously authenticated as: %s.%s", prev.User.DB, prev.User.Name)
			}
			return nil, errs.New(errs.Location5626702, "Client has attempted to authenticate on multiple databases.Already authenticated as: %s.%s", prev.User.DB, prev.User.Name)
		}
		g, err := s.resolveGrants(ctx, u)
		if err != nil {
			return nil, err
		}
		c.authn.mu.Lock()
		c.authn.grants, c.authn.gen = g, s.users.Generation()
		if done {
			c.authn.conv = nil
		}
		c.authn.mu.Unlock()
		done = true
		s.log.Info("Successfully authenticated", mongolog.KeyComponent, "ACCESS", mongolog.KeyID, mongolog.IDAuthSucceeded,
			mongolog.KeyCtx, "conn"+itoa(c.id), "client", c.remoteAddr(), "mechanism", conv.Mechanism,
			"user", u.Name, "db", u.DB)
	}
	return bsoncore.NewDocumentBuilder().
		AppendInt32("conversationId", id).
		AppendBoolean("done", done).
		AppendBinary("payload", 0, out).Build(), nil
}

// isLoopback reports whether the connection comes from this machine (the
// localhost exception), counting in-process connections.
func (c *conn) isLoopback() bool {
	if c == nil {
		return true
	}
	if ta, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	_, isPipe := c.nc.RemoteAddr().(pipeAddr)
	return isPipe
}

// appendSupportedMechs answers hello's saslSupportedMechs: "db.user" with
// the user's mechanisms; an unknown user gets no field, as in mongod.
func (s *Server) appendSupportedMechs(ctx context.Context, reply bsoncore.Document, dbUser string) bsoncore.Document {
	db, name, ok := strings.Cut(dbUser, ".")
	if !ok {
		return reply
	}
	u, err := s.users.User(ctx, name, db)
	if err != nil || u == nil {
		return reply
	}
	mechs := bsoncore.NewArrayBuilder()
	for _, m := range u.Mechanisms() {
		mechs.AppendString(m)
	}
	return appendField(reply, "saslSupportedMechs", bsoncore.Value{Type: bsoncore.TypeArray, Data: mechs.Build()})
}

// appendSpeculativeAuth runs hello's speculativeAuthenticate, a saslStart
// in the handshake that saves a round trip. A failure leaves the field
// out, and the driver authenticates the ordinary way.
func (s *Server) appendSpeculativeAuth(ctx context.Context, req *Request, reply, spec bsoncore.Document) bsoncore.Document {
	if req.conn == nil {
		return reply
	}
	if _, err := spec.LookupErr("saslStart"); err != nil {
		return reply // x509 and others are not supported
	}
	a, err := parseSaslStart("saslStart", func(fn func(k string, v bsoncore.Value) (bool, error)) error {
		first := true
		return bsonutil.EachElement(spec, func(el bsoncore.Element) error {
			if first {
				first = false
				return nil
			}
			_, err := fn(el.Key(), el.Value())
			return err
		})
	})
	if err != nil {
		return reply
	}
	db := req.DB
	if v, ok := spec.Lookup("db").StringValueOK(); ok {
		db = v
	}
	res, err := s.saslStart(ctx, req.conn, db, a.mechanism, a.payload)
	if err != nil {
		return reply
	}
	return appendField(reply, "speculativeAuthenticate", bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: res})
}
