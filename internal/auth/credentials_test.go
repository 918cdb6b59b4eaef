package auth

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"log/slog"
	"testing"

	"github.com/xdg-go/scram"
	"github.com/xdg-go/stringprep"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// driverClient is the SCRAM client as the Go driver builds it: for
// SCRAM-SHA-1 the password is hex(MD5(user:mongo:pwd)), for SCRAM-SHA-256
// the SASLprep'd password.
func driverClient(t *testing.T, mech, user, pwd string) *scram.ClientConversation {
	t.Helper()
	var c *scram.Client
	var err error
	switch mech {
	case MechSHA1:
		sum := md5.Sum([]byte(user + ":mongo:" + pwd))
		c, err = scram.SHA1.NewClientUnprepped(user, hex.EncodeToString(sum[:]), "")
	case MechSHA256:
		prepped, perr := stringprep.SASLprep.Prepare(pwd)
		if perr != nil {
			t.Fatal(perr)
		}
		c, err = scram.SHA256.NewClientUnprepped(user, prepped, "")
	}
	if err != nil {
		t.Fatal(err)
	}
	return c.NewConversation()
}

// converse runs a whole exchange between a driver client and step, the
// server side; it returns the server's error, if any.
func converse(t *testing.T, client *scram.ClientConversation, step func(in string) (string, error)) error {
	t.Helper()
	in := ""
	for i := 0; i < 4; i++ {
		out, err := client.Step(in)
		if err != nil {
			t.Fatalf("client step %d: %v", i, err)
		}
		if client.Done() {
			if !client.Valid() {
				t.Fatal("the client could not verify the server's signature")
			}
			return nil
		}
		if in, err = step(out); err != nil {
			return err
		}
	}
	t.Fatal("the exchange does not end")
	return nil
}

// TestCredentialRoundTrip: a credential NewCredential derives verifies
// the password the Go driver sends, for both mechanisms, and not another
// one; stored and read back, it is the same.
func TestCredentialRoundTrip(t *testing.T) {
	for _, mech := range []string{MechSHA1, MechSHA256} {
		for _, pwd := range []string{"s3cret!", "pässwörd\u00a0x"} {
			cred, err := NewCredential(mech, "alice", pwd)
			if err != nil {
				t.Fatal(err)
			}
			wantIters := map[string]int{MechSHA1: 10000, MechSHA256: 15000}[mech]
			if cred.Iters != wantIters {
				t.Errorf("%s: %d iterations, want mongod's %d", mech, cred.Iters, wantIters)
			}
			back, err := parseCredential(cred.appendDoc(nil))
			if err != nil {
				t.Fatal(err)
			}
			hash := map[string]scram.HashGeneratorFcn{MechSHA1: scram.SHA1, MechSHA256: scram.SHA256}[mech]
			for _, c := range []struct {
				pwd string
				ok  bool
			}{{pwd, true}, {pwd + "x", false}} {
				srv, err := hash.NewServer(func(string) (scram.StoredCredentials, error) { return back.stored(), nil })
				if err != nil {
					t.Fatal(err)
				}
				conv := srv.NewConversation()
				err = converse(t, driverClient(t, mech, "alice", c.pwd), conv.Step)
				if ok := err == nil && conv.Valid(); ok != c.ok {
					t.Errorf("%s, password %q: authenticated %v (%v), want %v", mech, c.pwd, ok, err, c.ok)
				}
			}
		}
	}
	if _, err := NewCredential("PLAIN", "a", "b"); err == nil {
		t.Error("an unknown mechanism derives a credential")
	}
}

// openStore is a Store on a fresh engine.
func openStore(t *testing.T) *Store {
	t.Helper()
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return NewStore(eng)
}

// TestStoreSASL: saslStart/saslContinue's conversation against a stored
// user: the right password authenticates as that user; a wrong one and
// an unknown user both fail with AuthenticationFailed (18).
func TestStoreSASL(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	creds := map[string]Credential{}
	for _, m := range []string{MechSHA1, MechSHA256} {
		c, err := NewCredential(m, "bob", "pw")
		if err != nil {
			t.Fatal(err)
		}
		creds[m] = c
	}
	if err := s.CreateUser(ctx, &User{Name: "bob", DB: "shop", UserID: NewUserID(), Creds: creds, Roles: []RoleName{{"read", "shop"}}}); err != nil {
		t.Fatal(err)
	}
	for _, mech := range []string{MechSHA1, MechSHA256} {
		for _, c := range []struct{ user, pwd, db string }{{"bob", "pw", "shop"}, {"bob", "nope", "shop"}, {"carol", "pw", "shop"}, {"bob", "pw", "other"}} {
			conv, err := s.StartSASL(ctx, c.db, mech)
			if err != nil {
				t.Fatal(err)
			}
			err = converse(t, driverClient(t, mech, c.user, c.pwd), func(in string) (string, error) {
				out, _, err := conv.Step([]byte(in))
				return string(out), err
			})
			ok := c.user == "bob" && c.pwd == "pw" && c.db == "shop"
			if ok {
				if err != nil || !conv.Finished() || conv.User().ID() != "shop.bob" {
					t.Errorf("%s %+v: %v finished=%v", mech, c, err, conv.Finished())
				}
				continue
			}
			if e := errs.As(err); e == nil || e.Code != errs.AuthenticationFailed {
				t.Errorf("%s %+v: %v, want AuthenticationFailed", mech, c, err)
			}
		}
	}
	if _, err := s.StartSASL(ctx, "shop", "PLAIN"); errs.As(err) == nil || errs.As(err).Code != errs.MechanismUnavailable {
		t.Errorf("PLAIN: %v", err)
	}
}
