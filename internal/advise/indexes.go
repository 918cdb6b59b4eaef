package advise

import (
	"context"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// indexReports fills the unused and prefix index sections for every
// collection in scope (idx already holds those with shapes).
func (rep *Report) indexReports(ctx context.Context, client *mongo.Client, o Options, idx map[string][]existing) error {
	dbs, err := client.ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		return fmt.Errorf("advise: list databases: %w", err)
	}
	sort.Strings(dbs)
	saved := savedAccesses(ctx, client)
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	for _, db := range dbs {
		if !inScope(o, db, "") {
			continue
		}
		colls, err := client.Database(db).ListCollectionNames(ctx, bson.D{{Key: "type", Value: "collection"}})
		if err != nil {
			return fmt.Errorf("advise: list collections of %s: %w", db, err)
		}
		sort.Strings(colls)
		for _, coll := range colls {
			if !inScope(o, db, coll) {
				continue
			}
			c := client.Database(db).Collection(coll)
			ns := db + "." + coll
			ixs, ok := idx[ns]
			if !ok {
				if ixs, err = listIndexes(ctx, c); err != nil {
					return err
				}
			}
			if err := rep.unused(ctx, c, ns, ixs, saved, now, o.MinObserved); err != nil {
				return err
			}
			rep.prefixes(ns, ixs)
		}
	}
	return nil
}

// savedAccess is an index access counter a Lode server saved with its
// query statistics (internal/server querystats_store.go).
type savedAccess struct {
	since    time.Time
	observed time.Duration
}

// savedAccesses reads the index access counters saved in
// local.system.lode.queryStats, by namespace and index name; a server
// that saves none (mongod) gives none.
func savedAccesses(ctx context.Context, client *mongo.Client) map[string]savedAccess {
	out := map[string]savedAccess{}
	cur, err := client.Database("local").Collection("system.lode.queryStats").Find(ctx,
		bson.D{{Key: "indexAccess", Value: bson.D{{Key: "$exists", Value: true}}}})
	if err != nil {
		return out
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var d struct {
			A struct {
				DB             string    `bson:"db"`
				Coll           string    `bson:"coll"`
				Name           string    `bson:"name"`
				Since          time.Time `bson:"since"`
				ObservedMillis int64     `bson:"observedMillis"`
			} `bson:"indexAccess"`
		}
		if cur.Decode(&d) != nil {
			continue
		}
		out[d.A.DB+"."+d.A.Coll+"\x00"+d.A.Name] = savedAccess{since: d.A.Since,
			observed: time.Duration(d.A.ObservedMillis) * time.Millisecond}
	}
	return out
}

// unused adds the indexes of c that $indexStats shows no operation used:
// to Unused when the counting covers at least minObserved of running
// time, to Undecided otherwise. The running time is the one the server
// saved with the counter when it saved one for the same start, else the
// time since the counting began (a running server's counters start when
// it starts).
func (rep *Report) unused(ctx context.Context, c *mongo.Collection, ns string, ixs []existing,
	saved map[string]savedAccess, now time.Time, minObserved time.Duration) error {
	cur, err := c.Aggregate(ctx, mongo.Pipeline{{{Key: "$indexStats", Value: bson.D{}}}})
	if err != nil {
		return fmt.Errorf("advise: $indexStats of %s: %w", ns, err)
	}
	var stats []struct {
		Name     string `bson:"name"`
		Key      bson.D `bson:"key"`
		Accesses struct {
			Ops   int64     `bson:"ops"`
			Since time.Time `bson:"since"`
		} `bson:"accesses"`
	}
	if err := cur.All(ctx, &stats); err != nil {
		return fmt.Errorf("advise: $indexStats of %s: %w", ns, err)
	}
	sort.Slice(stats, func(i, j int) bool { return stats[i].Name < stats[j].Name })
	for _, st := range stats {
		if st.Name == "_id_" || st.Accesses.Ops > 0 {
			continue
		}
		k, _ := KeyFromD(st.Key)
		since := st.Accesses.Since
		observed := now.Sub(since)
		if sa, ok := saved[ns+"\x00"+st.Name]; ok && sa.since.UnixMilli() == since.UnixMilli() {
			observed = sa.observed
		}
		observed = max(observed, 0)
		ref := IndexRef{NS: ns, Name: st.Name, Key: k, Since: &since, ObservedMillis: observed.Milliseconds()}
		for _, ix := range ixs {
			if ix.name == st.Name && ix.special {
				ref.Note = "unique, sparse, partial or TTL: check its other role before dropping it"
			}
		}
		if observed < minObserved {
			rep.Undecided = append(rep.Undecided, ref)
			continue
		}
		rep.Unused = append(rep.Unused, ref)
	}
	return nil
}

// prefixes adds the indexes whose key is a prefix of another index's.
func (rep *Report) prefixes(ns string, ixs []existing) {
	for _, a := range ixs {
		if !a.btree || a.special {
			continue
		}
		for _, b := range ixs {
			if b.name != a.name && b.btree && len(a.key) < len(b.key) && a.key.IsPrefixOf(b.key) {
				rep.Prefix = append(rep.Prefix, IndexRef{NS: ns, Name: a.name, Key: a.key, PrefixOf: b.name})
				break
			}
		}
	}
}
