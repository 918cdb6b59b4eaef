package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// usageError is a bad command line or configuration file: lode prints it
// and exits 2 (mongod's EXIT_BADOPTIONS), without the flag list.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// flagAliases are mongod's names of serve's flags: either name sets the
// same value.
var flagAliases = map[string]string{
	"dbpath":                                 "dir",
	"f":                                      "config",
	"wiredTigerCacheSizeGB":                  "cache-size-gb",
	"tlsMode":                                "tls-mode",
	"tlsCertificateKeyFile":                  "tls-cert-file",
	"tlsCAFile":                              "tls-ca-file",
	"tlsAllowConnectionsWithoutCertificates": "tls-allow-connections-without-certificates",
	"replSet":                                "replset",
	"oplogSize":                              "oplog-size-mb",
	"maxConns":                               "max-connections",
	"slowOpSampleRate":                       "slow-op-sample-rate",
	"setParameter":                           "set-parameter",
}

// canonicalFlag returns serve's own name for a flag name or alias.
func canonicalFlag(name string) string {
	if c, ok := flagAliases[name]; ok {
		return c
	}
	return name
}

// addAliases defines each alias of flagAliases whose target fs has and
// the alias not yet: the alias shares the target's value.
func addAliases(fs *flag.FlagSet) {
	for alias, target := range flagAliases {
		t := fs.Lookup(target)
		if t == nil || fs.Lookup(alias) != nil {
			continue
		}
		fs.Var(t.Value, alias, "the same as --"+target+" (mongod's name)")
	}
}

// givenFlags returns the flags set on the command line, by serve's own
// names.
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[canonicalFlag(f.Name)] = true })
	return given
}

// parseFlags parses args into fs, whose output it keeps quiet: --help
// prints the flags and returns flag.ErrHelp; an unknown flag is answered
// with the nearest known one, and any other bad flag with its error, as
// a usageError, instead of the whole flag list.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stderr)
		fs.Usage()
		return err
	}
	const undefined = "flag provided but not defined: -"
	if msg := err.Error(); strings.HasPrefix(msg, undefined) {
		name := strings.TrimPrefix(msg, undefined)
		if near := nearestFlag(fs, name); near != "" {
			return usageError{fmt.Sprintf("unknown flag --%s; did you mean --%s? (lode %s --help lists the flags)", name, near, fs.Name())}
		}
		return usageError{fmt.Sprintf("unknown flag --%s (lode %s --help lists the flags)", name, fs.Name())}
	}
	return usageError{fmt.Sprintf("%v (lode %s --help lists the flags)", err, fs.Name())}
}

// nearestFlag returns the flag of fs whose name is closest to name, by
// edit distance over names folded to lower case without '-' and '_',
// or "" when none is close enough to be a likely typo.
func nearestFlag(fs *flag.FlagSet, name string) string {
	fold := func(s string) string {
		return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	}
	want := fold(name)
	best, bestDist := "", -1
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(want, fold(f.Name))
		// Prefer serve's own name over an alias at the same distance.
		if bestDist < 0 || d < bestDist || (d == bestDist && flagAliases[best] == f.Name) {
			best, bestDist = f.Name, d
		}
	})
	if bestDist < 0 || bestDist > max(2, len(want)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
