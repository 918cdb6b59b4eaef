package migrate

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// skipDB reports the databases never copied: the system databases
// (mongodump and mongosync leave them too) and the migration's own.
func skipDB(db string) bool {
	switch db {
	case "admin", "local", "config", CheckpointDB:
		return true
	}
	return false
}

// skipColl reports system collections: views are copied from
// listCollections, not from system.views; the others belong to the
// server.
func skipColl(coll string) bool { return strings.HasPrefix(coll, "system.") }

// Namespaces decides which namespaces move and under which name:
// --ns-include and --ns-exclude patterns (db.coll with * wildcards, as
// mongorestore's), and --nsFrom/--nsTo renames with $variable$ parts.
type Namespaces struct {
	Include []string
	Exclude []string
	renames []rename
}

type rename struct {
	from *regexp.Regexp
	to   string
	vars []string
}

// NewNamespaces checks the patterns and pairs the renames.
func NewNamespaces(include, exclude, nsFrom, nsTo []string) (*Namespaces, error) {
	n := &Namespaces{Include: include, Exclude: exclude}
	for _, p := range append(append([]string{}, include...), exclude...) {
		if _, err := path.Match(p, ""); err != nil || !strings.Contains(p, ".") {
			return nil, fmt.Errorf("bad namespace pattern %q: want db.collection, with * as a wildcard", p)
		}
	}
	if len(nsFrom) != len(nsTo) {
		return nil, fmt.Errorf("--nsFrom and --nsTo must be given the same number of times (%d and %d)", len(nsFrom), len(nsTo))
	}
	for i, f := range nsFrom {
		r, err := newRename(f, nsTo[i])
		if err != nil {
			return nil, err
		}
		n.renames = append(n.renames, r)
	}
	return n, nil
}

var varRE = regexp.MustCompile(`\$[A-Za-z0-9_]+\$`)

func newRename(from, to string) (rename, error) {
	var re strings.Builder
	re.WriteString("^")
	var vars []string
	rest := from
	for {
		loc := varRE.FindStringIndex(rest)
		if loc == nil {
			re.WriteString(wildcard(rest))
			break
		}
		re.WriteString(wildcard(rest[:loc[0]]))
		v := rest[loc[0]:loc[1]]
		for _, seen := range vars {
			if seen == v {
				return rename{}, fmt.Errorf("--nsFrom %q: variable %s used twice", from, v)
			}
		}
		vars = append(vars, v)
		re.WriteString("(.*?)")
		rest = rest[loc[1]:]
	}
	re.WriteString("$")
	for _, v := range varRE.FindAllString(to, -1) {
		found := false
		for _, seen := range vars {
			found = found || seen == v
		}
		if !found {
			return rename{}, fmt.Errorf("--nsTo %q: variable %s is not in --nsFrom %q", to, v, from)
		}
	}
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return rename{}, fmt.Errorf("--nsFrom %q: %v", from, err)
	}
	return rename{from: rx, to: to, vars: vars}, nil
}

// wildcard quotes s for a regular expression, * matching any run of
// characters.
func wildcard(s string) string {
	parts := strings.Split(s, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, ".*")
}

// Included reports whether db.coll moves (before any rename).
func (n *Namespaces) Included(db, coll string) bool {
	if skipDB(db) || skipColl(coll) {
		return false
	}
	ns := db + "." + coll
	if len(n.Include) > 0 {
		in := false
		for _, p := range n.Include {
			if ok, _ := path.Match(p, ns); ok {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, p := range n.Exclude {
		if ok, _ := path.Match(p, ns); ok {
			return false
		}
	}
	return true
}

// DBIncluded reports whether any collection of db could move (database
// events: dropDatabase).
func (n *Namespaces) DBIncluded(db string) bool {
	if skipDB(db) {
		return false
	}
	if len(n.Include) == 0 {
		return true
	}
	for _, p := range n.Include {
		pdb, _, _ := strings.Cut(p, ".")
		if ok, _ := path.Match(pdb, db); ok {
			return true
		}
	}
	return false
}

// Target is the target namespace of source db.coll: the first rename
// whose --nsFrom matches, else the same name.
func (n *Namespaces) Target(db, coll string) (string, string) {
	ns := db + "." + coll
	for _, r := range n.renames {
		m := r.from.FindStringSubmatch(ns)
		if m == nil {
			continue
		}
		out := r.to
		for i, v := range r.vars {
			out = strings.ReplaceAll(out, v, m[i+1])
		}
		tdb, tcoll, ok := strings.Cut(out, ".")
		if ok {
			return tdb, tcoll
		}
	}
	return db, coll
}

// renamesNone reports that no rename is configured.
func (n *Namespaces) renamesNone() bool { return len(n.renames) == 0 }
