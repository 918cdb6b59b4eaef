package server

import (
	"context"
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

func init() {
	register(admin(cmdListDatabases, authenticated(), "listDatabases").inAPIV1())
}

// cmdListDatabases lists databases with their sizes. Under authorization
// it follows mongod: a user with listDatabases on the cluster sees every
// database; any other user sees only the databases it has privileges in
// (authorizedDatabases, true by default for it), and asking for all of
// them with authorizedDatabases: false is refused (13).
func cmdListDatabases(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "listDatabases may only be run against the admin database.")
	}
	var filter *query.Filter
	nameOnly := false
	var authorizedDBs *bool
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "filter":
			d, err := argDoc(req.Name, k, v)
			if err != nil {
				return true, err
			}
			filter, err = query.Parse(d)
			return true, err
		case "nameOnly":
			var err error
			nameOnly, err = argBool(req.Name, k, v)
			return true, err
		case "authorizedDatabases":
			b, err := argBool(req.Name, k, v)
			authorizedDBs = &b
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	g, err := s.connGrants(ctx, req)
	if err != nil {
		return nil, err
	}
	onlyAuthorized := false
	if g != nil {
		mayListAll := g.Allowed(auth.ClusterResource, auth.Actions(auth.ActListDatabases))
		onlyAuthorized = !mayListAll
		if authorizedDBs != nil {
			if !*authorizedDBs && !mayListAll {
				return nil, errs.New(errs.Unauthorized, "Insufficient permissions to list all databases")
			}
			onlyAuthorized = *authorizedDBs
		}
	}
	dbs, err := s.eng.ListDatabases()
	if err != nil {
		return nil, err
	}
	dbs = s.withSystemDatabases(dbs)
	ab := bsoncore.NewArrayBuilder()
	var total int64
	for _, d := range dbs {
		if onlyAuthorized && !g.AnyOnDB(d.Name) {
			continue
		}
		eb := bsoncore.NewDocumentBuilder().AppendString("name", d.Name)
		if !nameOnly {
			eb.AppendInt64("sizeOnDisk", d.SizeOnDisk).AppendBoolean("empty", d.Empty)
		}
		doc := eb.Build()
		if filter != nil && !filter.Match(doc) {
			continue
		}
		total += d.SizeOnDisk
		ab.AppendDocument(doc)
	}
	b := bsoncore.NewDocumentBuilder().AppendArray("databases", ab.Build())
	if !nameOnly {
		b.AppendInt64("totalSize", total).AppendInt64("totalSizeMb", total>>20)
	}
	return b.Build(), nil
}

// withSystemDatabases adds admin, config and local to dbs where they are
// missing, as a running mongod always lists them (admin holds its
// system.version, config its system.sessions, local its oplog and
// startup log): mongosh's `show dbs` shows them too. local's size
// counts the oplog.
func (s *Server) withSystemDatabases(dbs []engine.DatabaseInfo) []engine.DatabaseInfo {
	for _, name := range []string{"admin", "config", "local"} {
		i := sort.Search(len(dbs), func(i int) bool { return dbs[i].Name >= name })
		if i < len(dbs) && dbs[i].Name == name {
			if name == "local" {
				dbs[i].SizeOnDisk += s.oplogBytes()
			}
			continue
		}
		d := engine.DatabaseInfo{Name: name, SizeOnDisk: s.eng.DatabaseSize(name)}
		if name == "local" {
			d.SizeOnDisk += s.oplogBytes()
		}
		dbs = slices.Insert(dbs, i, d)
	}
	return dbs
}

// oplogBytes is the oplog's size, 0 without one.
func (s *Server) oplogBytes() int64 {
	if l := s.eng.Oplog(); l != nil {
		if st, err := l.Stats(); err == nil {
			return st.Bytes
		}
	}
	return 0
}
