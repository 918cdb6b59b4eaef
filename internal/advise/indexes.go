package advise

import (
	"context"
	"fmt"
	"sort"

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
			if err := rep.unused(ctx, c, ns, ixs); err != nil {
				return err
			}
			rep.prefixes(ns, ixs)
		}
	}
	return nil
}

// unused adds the indexes of c that $indexStats shows no operation used.
func (rep *Report) unused(ctx context.Context, c *mongo.Collection, ns string, ixs []existing) error {
	cur, err := c.Aggregate(ctx, mongo.Pipeline{{{Key: "$indexStats", Value: bson.D{}}}})
	if err != nil {
		return fmt.Errorf("advise: $indexStats of %s: %w", ns, err)
	}
	var stats []struct {
		Name     string `bson:"name"`
		Key      bson.D `bson:"key"`
		Accesses struct {
			Ops int64 `bson:"ops"`
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
		ref := IndexRef{NS: ns, Name: st.Name, Key: k}
		for _, ix := range ixs {
			if ix.name == st.Name && ix.special {
				ref.Note = "unique, sparse, partial or TTL: check its other role before dropping it"
			}
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
