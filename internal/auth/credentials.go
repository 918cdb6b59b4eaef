package auth

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/xdg-go/scram"
	"github.com/xdg-go/stringprep"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The SCRAM mechanisms, by their SASL names.
const (
	MechSHA1   = "SCRAM-SHA-1"
	MechSHA256 = "SCRAM-SHA-256"
)

// Iteration counts: mongod's scramIterationCount and
// scramSHA256IterationCount defaults.
const (
	itersSHA1   = 10000
	itersSHA256 = 15000
)

// Credential is one mechanism's stored secret, as mongod keeps it under
// credentials.<mechanism> in admin.system.users.
type Credential struct {
	Iters     int
	Salt      []byte
	StoredKey []byte
	ServerKey []byte
}

// mongoPasswordDigest is the password SCRAM-SHA-1 uses in MongoDB:
// hex(MD5(user + ":mongo:" + password)), the driver computes the same.
func mongoPasswordDigest(user, pwd string) string {
	h := md5.Sum([]byte(user + ":mongo:" + pwd))
	return hex.EncodeToString(h[:])
}

// NewCredential derives mech's stored credential for user and pwd with
// a fresh random salt.
func NewCredential(mech, user, pwd string) (Credential, error) {
	var hash scram.HashGeneratorFcn
	var secret string
	var iters, saltLen int
	switch mech {
	case MechSHA1:
		hash, secret, iters, saltLen = scram.SHA1, mongoPasswordDigest(user, pwd), itersSHA1, 16
	case MechSHA256:
		prepped, err := stringprep.SASLprep.Prepare(pwd)
		if err != nil {
			return Credential{}, fmt.Errorf("SASLprep of the password: %w", err)
		}
		hash, secret, iters, saltLen = scram.SHA256, prepped, itersSHA256, 28
	default:
		return Credential{}, fmt.Errorf("unknown mechanism %q", mech)
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return Credential{}, fmt.Errorf("salt: %w", err)
	}
	// The client computes SaltedPassword from the same secret; the
	// username given here only feeds the client-first message, unused.
	c, err := hash.NewClientUnprepped(user, secret, "")
	if err != nil {
		return Credential{}, fmt.Errorf("scram client: %w", err)
	}
	sc, err := c.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: iters})
	if err != nil {
		return Credential{}, fmt.Errorf("derive credential: %w", err)
	}
	return Credential{Iters: iters, Salt: salt, StoredKey: sc.StoredKey, ServerKey: sc.ServerKey}, nil
}

// stored is the credential in the scram library's form.
func (c Credential) stored() scram.StoredCredentials {
	return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(c.Salt), Iters: c.Iters},
		StoredKey: c.StoredKey, ServerKey: c.ServerKey}
}

// appendDoc writes the credential as mongod stores it: iterationCount,
// and salt, storedKey and serverKey in base64.
func (c Credential) appendDoc(dst []byte) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendInt32Element(dst, "iterationCount", int32(c.Iters))
	dst = bsoncore.AppendStringElement(dst, "salt", base64.StdEncoding.EncodeToString(c.Salt))
	dst = bsoncore.AppendStringElement(dst, "storedKey", base64.StdEncoding.EncodeToString(c.StoredKey))
	dst = bsoncore.AppendStringElement(dst, "serverKey", base64.StdEncoding.EncodeToString(c.ServerKey))
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// parseCredential reads a stored credential document.
func parseCredential(d bsoncore.Document) (Credential, error) {
	var c Credential
	it, ok := d.Lookup("iterationCount").AsInt64OK()
	if !ok {
		return c, fmt.Errorf("credential without iterationCount")
	}
	c.Iters = int(it)
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{"salt", &c.Salt}, {"storedKey", &c.StoredKey}, {"serverKey", &c.ServerKey}} {
		s, ok := d.Lookup(f.name).StringValueOK()
		if !ok {
			return c, fmt.Errorf("credential without %s", f.name)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return c, fmt.Errorf("credential %s: %w", f.name, err)
		}
		*f.dst = b
	}
	return c, nil
}
