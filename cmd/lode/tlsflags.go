package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/internal/server"
)

// tlsFlags are `lode serve`'s TLS flags, mongod's net.tls settings.
type tlsFlags struct {
	mode        *string
	cert        *string
	key         *string
	ca          *string
	allowNoCert *bool
}

func addTLSFlags(fs *flag.FlagSet) *tlsFlags {
	return &tlsFlags{
		mode: fs.String("tls-mode", "disabled", "TLS mode, mongod's net.tls.mode: disabled, allowTLS (or allow), preferTLS (or prefer), requireTLS (or require); "+
			"allowTLS and preferTLS accept TLS and plain connections on one port"),
		cert: fs.String("tls-cert-file", "", "PEM file with the server's certificate chain and, unless --tls-key-file is given, its private key (mongod's certificateKeyFile)"),
		key:  fs.String("tls-key-file", "", "PEM file with the server's private key, when it is not in --tls-cert-file"),
		ca:   fs.String("tls-ca-file", "", "PEM bundle of the CAs that sign client certificates (mongod's CAFile); when set, clients must present a certificate signed by one"),
		allowNoCert: fs.Bool("tls-allow-connections-without-certificates", false,
			"with --tls-ca-file, let clients without a certificate in (mongod's allowConnectionsWithoutCertificates)"),
	}
}

// config checks the flags together and loads the files. Mode disabled
// with files given is allowed, with a warning: the files are not read.
func (f *tlsFlags) config(log *slog.Logger) (server.TLSMode, *tls.Config, error) {
	mode, err := server.ParseTLSMode(*f.mode)
	if err != nil {
		return 0, nil, fmt.Errorf("bad --tls-mode: %w", err)
	}
	if *f.key != "" && *f.cert == "" {
		return 0, nil, fmt.Errorf("--tls-key-file needs --tls-cert-file (the server's certificate)")
	}
	if mode == server.TLSDisabled {
		if *f.cert != "" || *f.ca != "" {
			log.Warn("TLS files given but --tls-mode is disabled: TLS is off and they are not used", "tls-cert-file", *f.cert, "tls-ca-file", *f.ca)
		}
		return mode, nil, nil
	}
	if *f.cert == "" {
		return 0, nil, fmt.Errorf("--tls-mode %s needs --tls-cert-file (a PEM file with the server's certificate and private key)", mode)
	}
	if *f.allowNoCert && *f.ca == "" {
		log.Warn("--tls-allow-connections-without-certificates has no effect without --tls-ca-file: client certificates are not asked for")
	}
	cfg, err := server.LoadTLSConfig(server.TLSFiles{CertFile: *f.cert, KeyFile: *f.key, CAFile: *f.ca,
		AllowConnectionsWithoutCertificates: *f.allowNoCert})
	if err != nil {
		return 0, nil, fmt.Errorf("TLS (--tls-cert-file, --tls-key-file, --tls-ca-file): %w", err)
	}
	leaf := cfg.Certificates[0].Leaf
	if left := time.Until(leaf.NotAfter); left < 30*24*time.Hour {
		log.Warn("the server's TLS certificate expires in less than 30 days", "expires", leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	log.Info("TLS enabled", mongolog.KeyComponent, "NETWORK", mongolog.KeyID, mongolog.IDTLSEnabled, mongolog.KeyCtx, "initandlisten",
		"mode", mode.String(), "subject", leaf.Subject.String(),
		"client_certificates", clientCertPolicy(cfg))
	return mode, cfg, nil
}

func clientCertPolicy(cfg *tls.Config) string {
	switch cfg.ClientAuth {
	case tls.RequireAndVerifyClientCert:
		return "required"
	case tls.VerifyClientCertIfGiven:
		return "verified when given"
	}
	return "not asked for"
}
