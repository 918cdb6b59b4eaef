package migrate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// maxListed bounds the differing documents listed per collection.
const maxListed = 10

// collReport is the comparison of one namespace.
type collReport struct {
	ci                 *collInfo
	srcCount, dstCount int64
	srcHash, dstHash   string
	diffs              []string
	err                error
}

// verify compares every included namespace of the source with its
// target: existence and kind, document counts, a hash over the
// documents in _id order (listing the first differing _ids), the
// indexes, and dbHash's per-collection hashes where both sides answer
// it. It prints a report and returns the number of differences.
func (m *Migration) verify(ctx context.Context) (int, error) {
	colls, err := m.listNamespaces(ctx)
	if err != nil {
		return 0, fmt.Errorf("list the source's collections: %w", err)
	}
	reports := make([]*collReport, len(colls))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, ci := range colls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			reports[i] = m.verifyColl(ctx, ci)
		}()
	}
	wg.Wait()
	diffs := 0
	for _, r := range reports {
		if r.err != nil {
			return 0, fmt.Errorf("verify %s: %w", r.ci.ns(), r.err)
		}
		where := r.ci.ns()
		if r.ci.tns() != r.ci.ns() {
			where += " -> " + r.ci.tns()
		}
		if len(r.diffs) == 0 {
			if r.ci.Type == "view" {
				m.out.printf("verify: %s: view, same definition", where)
			} else {
				m.out.printf("verify: %s: %d documents, hash %s, same on both sides", where, r.srcCount, r.srcHash[:16])
			}
			continue
		}
		diffs += len(r.diffs)
		for _, d := range r.diffs {
			m.out.printf("verify: %s: DIFFERENT: %s", where, d)
		}
	}
	if m.cfg.NS.renamesNone() {
		n, err := m.verifyExtra(ctx, colls)
		if err != nil {
			return 0, err
		}
		diffs += n
	}
	n, err := m.verifyDBHash(ctx, colls)
	if err != nil {
		return 0, err
	}
	diffs += n
	if diffs == 0 {
		m.out.printf("verify: %d namespace(s) identical", len(colls))
	} else {
		m.out.printf("verify: %d difference(s)", diffs)
	}
	return diffs, nil
}

func (m *Migration) verifyColl(ctx context.Context, ci *collInfo) *collReport {
	r := &collReport{ci: ci}
	tspec, err := m.targetSpec(ctx, ci)
	if err != nil {
		r.err = err
		return r
	}
	if tspec == nil {
		r.diffs = append(r.diffs, "missing on the target")
		return r
	}
	ttype := "collection"
	if t, ok := tspec.Lookup("type").StringValueOK(); ok {
		ttype = t
	}
	if ttype != ci.Type {
		r.diffs = append(r.diffs, fmt.Sprintf("a %s on the source, a %s on the target", ci.Type, ttype))
		return r
	}
	if ci.Type == "view" {
		want := m.createCommand(ci)
		topts, _ := tspec.Lookup("options").DocumentOK()
		for _, e := range want[1:] {
			if e.Key != "viewOn" && e.Key != "pipeline" {
				continue
			}
			tv := topts.Lookup(e.Key)
			if tv.Type != bson.Type(0) && !bytes.Equal(extJSON(e.Value), extJSON(tv)) {
				r.diffs = append(r.diffs, fmt.Sprintf("view %s differs: %s on the source, %s on the target", e.Key, extJSON(e.Value), extJSON(tv)))
			}
		}
		return r
	}
	topts, _ := tspec.Lookup("options").DocumentOK()
	if so, to := extJSON(optionsOrEmpty(ci.Options)), extJSON(optionsOrEmpty(bson.Raw(topts))); !bytes.Equal(so, to) {
		r.diffs = append(r.diffs, fmt.Sprintf("options differ: %s on the source, %s on the target", so, to))
	}
	r.compareDocs(ctx, m.src.Database(ci.DB).Collection(ci.Coll), m.dst.Database(ci.TDB).Collection(ci.TColl))
	if r.err != nil {
		return r
	}
	si, err := indexSpecs(ctx, m.src, ci.DB, ci.Coll)
	if err != nil {
		r.err = err
		return r
	}
	ti, err := indexSpecs(ctx, m.dst, ci.TDB, ci.TColl)
	if err != nil {
		r.err = err
		return r
	}
	sm, tm := map[string]string{}, map[string]string{}
	for _, s := range si {
		sm[specName(s)] = string(extJSON(s))
	}
	for _, s := range ti {
		tm[specName(s)] = string(extJSON(s))
	}
	for name, s := range sm {
		t, ok := tm[name]
		switch {
		case !ok:
			r.diffs = append(r.diffs, fmt.Sprintf("index %s missing on the target", name))
		case t != s:
			r.diffs = append(r.diffs, fmt.Sprintf("index %s differs: %s on the source, %s on the target", name, s, t))
		}
	}
	for name := range tm {
		if _, ok := sm[name]; !ok {
			r.diffs = append(r.diffs, fmt.Sprintf("index %s only on the target", name))
		}
	}
	sort.Strings(r.diffs)
	return r
}

func extJSON(v any) []byte {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, true, false)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return b
}

// targetSpec is the target's listCollections entry for ci, or nil.
func (m *Migration) targetSpec(ctx context.Context, ci *collInfo) (bson.Raw, error) {
	cur, err := m.dst.Database(ci.TDB).ListCollections(ctx, bson.D{{Key: "name", Value: ci.TColl}})
	if err != nil {
		return nil, err
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, nil
	}
	return specs[0], nil
}

// compareDocs walks both collections in _id order (simple collation),
// hashing every document and listing the _ids that differ.
func (r *collReport) compareDocs(ctx context.Context, src, dst *mongo.Collection) {
	opts := func() *options.FindOptionsBuilder {
		return options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).
			SetCollation(&options.Collation{Locale: "simple"}).SetBatchSize(2000)
	}
	sc, err := src.Find(ctx, bson.D{}, opts())
	if err != nil {
		r.err = err
		return
	}
	defer sc.Close(context.Background())
	dc, err := dst.Find(ctx, bson.D{}, opts())
	if err != nil {
		r.err = err
		return
	}
	defer dc.Close(context.Background())
	sh, dh := sha256.New(), sha256.New()
	sok, dok := sc.Next(ctx), dc.Next(ctx)
	listed := 0
	differ := func(format string, args ...any) {
		if listed < maxListed {
			r.diffs = append(r.diffs, fmt.Sprintf(format, args...))
		} else if listed == maxListed {
			r.diffs = append(r.diffs, "... and more documents")
		}
		listed++
	}
	for sok || dok {
		var cmp int
		switch {
		case !dok:
			cmp = -1
		case !sok:
			cmp = 1
		default:
			cmp = compareIDs(sc.Current.Lookup("_id"), dc.Current.Lookup("_id"))
		}
		switch {
		case cmp < 0:
			differ("_id %s missing on the target", sc.Current.Lookup("_id"))
		case cmp > 0:
			differ("_id %s only on the target", dc.Current.Lookup("_id"))
		default:
			if !bytes.Equal(sc.Current, dc.Current) {
				differ("_id %s differs: %s on the source, %s on the target", sc.Current.Lookup("_id"), sc.Current, dc.Current)
			}
		}
		if cmp <= 0 {
			sh.Write(sc.Current)
			r.srcCount++
			sok = sc.Next(ctx)
		}
		if cmp >= 0 {
			dh.Write(dc.Current)
			r.dstCount++
			dok = dc.Next(ctx)
		}
	}
	if err := sc.Err(); err != nil {
		r.err = err
		return
	}
	if err := dc.Err(); err != nil {
		r.err = err
		return
	}
	r.srcHash, r.dstHash = hex.EncodeToString(sh.Sum(nil)), hex.EncodeToString(dh.Sum(nil))
	if r.srcCount != r.dstCount {
		r.diffs = append(r.diffs, fmt.Sprintf("%d documents on the source, %d on the target", r.srcCount, r.dstCount))
	}
	if r.srcHash != r.dstHash && listed == 0 {
		r.diffs = append(r.diffs, "document hashes differ")
	}
	// countDocuments as the servers answer it, beside the walk's count.
	sn, err1 := src.CountDocuments(ctx, bson.D{})
	dn, err2 := dst.CountDocuments(ctx, bson.D{})
	if err1 == nil && err2 == nil && sn != dn {
		r.diffs = append(r.diffs, fmt.Sprintf("count: %d on the source, %d on the target", sn, dn))
	}
}

// compareIDs orders two _id values as the servers sorted them: equal
// bytes are equal; otherwise by canonical type order, then by value
// through extended JSON only as a fallback (the walk relies on both
// sides sorting the same way, which a difference in order shows).
func compareIDs(a, b bson.RawValue) int {
	if a.Type == b.Type && bytes.Equal(a.Value, b.Value) {
		return 0
	}
	return compareValues(a, b)
}

// verifyDBHash compares dbHash's per-collection hashes of the included
// collections where both sides answer it (mongod does; Lode does not).
func (m *Migration) verifyDBHash(ctx context.Context, colls []*collInfo) (int, error) {
	byDB := map[string][]*collInfo{}
	for _, ci := range colls {
		if ci.Type == "collection" && ci.DB == ci.TDB && ci.Coll == ci.TColl {
			byDB[ci.DB] = append(byDB[ci.DB], ci)
		}
	}
	diffs := 0
	for db, cis := range byDB {
		names := bson.A{}
		for _, ci := range cis {
			names = append(names, ci.Coll)
		}
		cmd := bson.D{{Key: "dbHash", Value: 1}, {Key: "collections", Value: names}}
		sr, err := command(ctx, m.src, db, cmd)
		if err != nil {
			m.out.printf("verify: dbHash of %s: not answered by the source (%v); compared by document hashes only", db, err)
			continue
		}
		tr, err := command(ctx, m.dst, db, cmd)
		if err != nil {
			m.out.printf("verify: dbHash of %s: not answered by the target (%v); compared by document hashes only", db, err)
			continue
		}
		sc, _ := sr.Lookup("collections").DocumentOK()
		tc, _ := tr.Lookup("collections").DocumentOK()
		for _, ci := range cis {
			s, _ := sc.Lookup(ci.Coll).StringValueOK()
			t, _ := tc.Lookup(ci.Coll).StringValueOK()
			if s != t {
				diffs++
				m.out.printf("verify: %s: DIFFERENT: dbHash %s on the source, %s on the target", ci.ns(), s, t)
			}
		}
	}
	return diffs, nil
}

func optionsOrEmpty(o bson.Raw) bson.Raw {
	if len(o) == 0 {
		return bson.Raw{5, 0, 0, 0, 0}
	}
	return o
}

// verifyExtra lists the namespaces the target has and the source has
// not, among those the filters include.
func (m *Migration) verifyExtra(ctx context.Context, colls []*collInfo) (int, error) {
	want := map[string]bool{}
	for _, ci := range colls {
		want[ci.tns()] = true
	}
	dbs, err := m.dst.ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		return 0, fmt.Errorf("list the target's databases: %w", err)
	}
	n := 0
	for _, db := range dbs {
		if !m.cfg.NS.DBIncluded(db) {
			continue
		}
		names, err := m.dst.Database(db).ListCollectionNames(ctx, bson.D{})
		if err != nil {
			return 0, fmt.Errorf("list the target's collections: %w", err)
		}
		for _, c := range names {
			if m.cfg.NS.Included(db, c) && !want[db+"."+c] {
				n++
				m.out.printf("verify: %s.%s: DIFFERENT: only on the target", db, c)
			}
		}
	}
	return n, nil
}
