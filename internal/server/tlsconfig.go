package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TLSFiles names the PEM files of a server's TLS setup, as mongod's
// net.tls settings do.
type TLSFiles struct {
	// CertFile holds the server's certificate chain, leaf first, and,
	// unless KeyFile is set, its private key (mongod's
	// certificateKeyFile). Encrypted keys are not supported.
	CertFile string
	// KeyFile holds the private key when it is not in CertFile.
	KeyFile string
	// CAFile holds the CA certificates that sign client certificates
	// (mongod's CAFile). When set, a client must present a certificate
	// they sign.
	CAFile string
	// AllowConnectionsWithoutCertificates lets a client without a
	// certificate in when CAFile is set; a certificate it does present
	// must still verify (mongod's allowConnectionsWithoutCertificates).
	AllowConnectionsWithoutCertificates bool
}

// LoadTLSConfig reads the files and returns the server's TLS
// configuration: TLS 1.2 or later, the certificate, and the client
// certificate policy. A certificate that is expired or not yet valid is
// refused, as mongod refuses it at startup.
func LoadTLSConfig(f TLSFiles) (*tls.Config, error) {
	if f.CertFile == "" {
		return nil, errors.New("no certificate file")
	}
	certPEM, err := os.ReadFile(f.CertFile)
	if err != nil {
		return nil, fmt.Errorf("read certificate: %w", err)
	}
	keyPEM := certPEM
	if f.KeyFile != "" {
		if keyPEM, err = os.ReadFile(f.KeyFile); err != nil {
			return nil, fmt.Errorf("read private key: %w", err)
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("load certificate and key from %s: %w", keyFileNames(f), err)
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, fmt.Errorf("parse certificate %s: %w", f.CertFile, err)
		}
	}
	if now := time.Now(); now.Before(cert.Leaf.NotBefore) || now.After(cert.Leaf.NotAfter) {
		return nil, fmt.Errorf("certificate %s is expired or not yet valid (valid from %s to %s)",
			f.CertFile, cert.Leaf.NotBefore.UTC().Format(time.RFC3339), cert.Leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	cfg := &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.NoClientCert,
	}
	if f.CAFile != "" {
		caPEM, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", f.CAFile)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		if f.AllowConnectionsWithoutCertificates {
			cfg.ClientAuth = tls.VerifyClientCertIfGiven
		}
	}
	return cfg, nil
}

func keyFileNames(f TLSFiles) string {
	if f.KeyFile == "" {
		return f.CertFile
	}
	return f.CertFile + " and " + f.KeyFile
}

// securityStatus renders serverStatus's security section for a server
// with TLS, as mongod reports its certificate: subject, whether client
// certificates are checked against a CA, and expiry. ok is false when
// TLS is off, and mongod's section is then left out.
func (s *Server) securityStatus() (doc bsoncore.Document, ok bool) {
	if s.cfg.TLSMode == TLSDisabled || s.cfg.TLS == nil || len(s.cfg.TLS.Certificates) == 0 {
		return nil, false
	}
	leaf := s.cfg.TLS.Certificates[0].Leaf
	if leaf == nil {
		return nil, false
	}
	return bsoncore.NewDocumentBuilder().
		AppendString("SSLServerSubjectName", leaf.Subject.String()).
		AppendBoolean("SSLServerHasCertificateAuthority", s.cfg.TLS.ClientCAs != nil).
		AppendDateTime("SSLServerCertificateExpirationDate", leaf.NotAfter.UnixMilli()).
		Build(), true
}
