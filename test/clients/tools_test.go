package clients

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// toolsDocs is the number of documents of the mixed collection.
const toolsDocs = 5000

// mixedValue returns the i-th value of a cycle through the BSON types.
func mixedValue(i int) any {
	switch i % 18 {
	case 0:
		return float64(i) + 0.25
	case 1:
		return fmt.Sprintf("str-%d-é", i)
	case 2:
		return bson.D{{Key: "x", Value: int32(i)}, {Key: "y", Value: bson.D{{Key: "z", Value: "deep"}}}}
	case 3:
		return bson.A{int32(i), "two", bson.D{{Key: "three", Value: 3.0}}, bson.A{}}
	case 4:
		return bson.Binary{Subtype: 0, Data: []byte{byte(i), 0, 1, 2, 255}}
	case 5:
		return bson.Binary{Subtype: 4, Data: bytes.Repeat([]byte{byte(i)}, 16)}
	case 6:
		var id bson.ObjectID
		copy(id[:], fmt.Sprintf("%012d", i))
		return id
	case 7:
		return i%2 == 0
	case 8:
		return bson.DateTime(int64(i) * 86_400_000)
	case 9:
		return nil
	case 10:
		return bson.Regex{Pattern: fmt.Sprintf("^a%d.*b", i), Options: "imx"}
	case 11:
		return int32(-i)
	case 12:
		return bson.Timestamp{T: uint32(1_700_000_000 + i), I: uint32(i)}
	case 13:
		return int64(i) << 33
	case 14:
		d, err := bson.ParseDecimal128(fmt.Sprintf("%d.%03dE-5", i, i%1000))
		if err != nil {
			panic(err)
		}
		return d
	case 15:
		return bson.MinKey{}
	case 16:
		return bson.MaxKey{}
	default:
		// An empty timestamp, which mongod keeps as given only when the
		// insert carries bypassEmptyTsReplacement (the tools send it).
		return bson.Timestamp{}
	}
}

// seedToolsDB fills db with the mixed collection (toolsDocs documents of
// every type, seven indexes of six kinds), a capped collection and one
// with changeStreamPreAndPostImages.
func seedToolsDB(t *testing.T, db *mongo.Database) {
	t.Helper()
	ctx := context.Background()
	now := bson.DateTime(time.Now().UnixMilli())
	docs := make(bson.A, 0, 1000)
	flush := func() {
		if len(docs) == 0 {
			return
		}
		// The driver's insert would let Lode replace the empty
		// timestamps; this insert keeps them, as mongorestore's does.
		if err := db.RunCommand(ctx, bson.D{{Key: "insert", Value: "mixed"}, {Key: "documents", Value: docs},
			{Key: "bypassEmptyTsReplacement", Value: true}}).Err(); err != nil {
			t.Fatal(err)
		}
		docs = docs[:0]
	}
	for i := range toolsDocs {
		d := bson.D{
			{Key: "_id", Value: int32(i)},
			{Key: "s", Value: fmt.Sprintf("s%05d", i)},
			{Key: "a", Value: int32(i % 100)},
			{Key: "b", Value: fmt.Sprintf("b%d", i%7)},
			{Key: "v", Value: mixedValue(i)},
			{Key: "p", Value: int32(i)},
			{Key: "dt", Value: now},
			{Key: "nested", Value: bson.D{{Key: "ts", Value: bson.Timestamp{}}, {Key: "w", Value: mixedValue(i + 7)}}},
		}
		if i%3 == 0 {
			d = append(d, bson.E{Key: "sp", Value: int64(i)})
		}
		docs = append(docs, d)
		if len(docs) == cap(docs) {
			flush()
		}
	}
	flush()
	mixed := db.Collection("mixed")
	// The empty timestamps were kept, so a restore must keep them too.
	if n, err := mixed.CountDocuments(ctx, bson.D{{Key: "v", Value: bson.Timestamp{}}}); err != nil || n != toolsDocs/18 {
		t.Fatalf("%d documents hold v: Timestamp(0, 0) (%v), want %d", n, err, toolsDocs/18)
	}
	if _, err := mixed.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}}},
		{Keys: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: -1}}, Options: options.Index().SetName("a_b_compound")},
		{Keys: bson.D{{Key: "s", Value: 1}}, Options: options.Index().SetUnique(true)},
		{Keys: bson.D{{Key: "sp", Value: -1}}, Options: options.Index().SetSparse(true)},
		{Keys: bson.D{{Key: "p", Value: 1}}, Options: options.Index().SetPartialFilterExpression(bson.D{{Key: "p", Value: bson.D{{Key: "$gt", Value: 100}}}})},
		{Keys: bson.D{{Key: "dt", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(10 * 365 * 86400)},
		{Keys: bson.D{{Key: "b", Value: "hashed"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20).SetMaxDocuments(300)); err != nil {
		t.Fatal(err)
	}
	// Collection options a dump carries besides capped ones.
	if err := db.CreateCollection(ctx, "images", options.CreateCollection().SetChangeStreamPreAndPostImages(bson.D{{Key: "enabled", Value: true}})); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("images").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	capped := make([]any, 400)
	for i := range capped {
		capped[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: mixedValue(i)}}
	}
	if _, err := db.Collection("capped").InsertMany(ctx, capped); err != nil {
		t.Fatal(err)
	}
}

// canonical renders a document with its top-level fields sorted, as
// canonical extended JSON (which keeps every type), for comparing
// specifications whose field order a tool does not keep.
func canonical(t *testing.T, raw bson.Raw, drop ...string) string {
	t.Helper()
	var d bson.D
	if err := bson.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	d = slices.DeleteFunc(d, func(e bson.E) bool { return slices.Contains(drop, e.Key) })
	slices.SortFunc(d, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
	out, err := bson.MarshalExtJSON(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// dbSnapshot is everything a dump should carry of a database: each
// collection's options, its indexes with their options, and its
// documents' exact bytes (in _id order, or natural order when capped).
type dbSnapshot map[string]collSnapshot

type collSnapshot struct {
	options string
	indexes []string
	docs    []bson.Raw
}

func snapshotDB(t *testing.T, db *mongo.Database) dbSnapshot {
	t.Helper()
	ctx := context.Background()
	cur, err := db.ListCollections(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var colls []bson.Raw
	if err := cur.All(ctx, &colls); err != nil {
		t.Fatal(err)
	}
	snap := dbSnapshot{}
	for _, ci := range colls {
		name := ci.Lookup("name").StringValue()
		opts := ci.Lookup("options").Document()
		c := db.Collection(name)
		var cs collSnapshot
		cs.options = canonical(t, bson.Raw(opts))
		icur, err := c.Indexes().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ixs []bson.Raw
		if err := icur.All(ctx, &ixs); err != nil {
			t.Fatal(err)
		}
		for _, ix := range ixs {
			cs.indexes = append(cs.indexes, canonical(t, ix, "ns"))
		}
		slices.Sort(cs.indexes)
		fo := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
		if capped, ok := opts.Lookup("capped").BooleanOK(); ok && capped {
			fo = options.Find()
		}
		dcur, err := c.Find(ctx, bson.D{}, fo)
		if err != nil {
			t.Fatal(err)
		}
		if err := dcur.All(ctx, &cs.docs); err != nil {
			t.Fatal(err)
		}
		snap[name] = cs
	}
	return snap
}

// compareSnapshots fails t where got differs from want.
func compareSnapshots(t *testing.T, want, got dbSnapshot) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("collection %s missing", name)
			continue
		}
		if g.options != w.options {
			t.Errorf("%s options = %s, want %s", name, g.options, w.options)
		}
		if !slices.Equal(g.indexes, w.indexes) {
			t.Errorf("%s indexes:\n%s\nwant:\n%s", name, strings.Join(g.indexes, "\n"), strings.Join(w.indexes, "\n"))
		}
		if len(g.docs) != len(w.docs) {
			t.Errorf("%s holds %d documents, want %d", name, len(g.docs), len(w.docs))
			continue
		}
		for i := range w.docs {
			if !bytes.Equal(g.docs[i], w.docs[i]) {
				t.Errorf("%s document %d = %s, want %s", name, i, g.docs[i], w.docs[i])
				break
			}
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected collection %s", name)
		}
	}
}

// TestToolsDumpRestore: mongodump then mongorestore, through the real
// binaries, reproduce a database of every BSON type exactly: each
// document byte for byte, each index with its options, the capped
// collection's size and max; into a new database (--nsFrom/--nsTo),
// over a changed copy (--drop), compressed (--gzip) and as an archive.
func TestToolsDumpRestore(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongorestore")
	s := startServer(t)
	c := connect(t, s)
	seedToolsDB(t, c.Database("src"))
	want := snapshotDB(t, c.Database("src"))
	if n := len(want["mixed"].docs); n != toolsDocs {
		t.Fatalf("seeded %d documents, want %d", n, toolsDocs)
	}
	if n := len(want["capped"].docs); n != 300 {
		t.Fatalf("capped holds %d documents, want 300 (max)", n)
	}
	if n := len(want["mixed"].indexes); n != 8 {
		t.Fatalf("mixed has %d indexes, want 8", n)
	}
	run := func(t *testing.T, tool string, args ...string) {
		t.Helper()
		out, err := runTool(t, tools, tool, append([]string{"--uri", s.uri()}, args...)...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
		}
		if strings.Contains(out, "error") || strings.Contains(out, " 0 document(s) restored") {
			t.Fatalf("%s %s reported a failure:\n%s", tool, strings.Join(args, " "), out)
		}
	}
	dir := t.TempDir()
	run(t, "mongodump", "--db", "src", "-o", filepath.Join(dir, "plain"))

	t.Run("nsFrom nsTo", func(t *testing.T) {
		run(t, "mongorestore", "--nsFrom", "src.*", "--nsTo", "dst1.*", filepath.Join(dir, "plain"))
		compareSnapshots(t, want, snapshotDB(t, c.Database("dst1")))

		// --drop replaces a copy that has drifted: extra documents, a
		// lost index, a changed document.
		ctx := context.Background()
		dst := c.Database("dst1").Collection("mixed")
		if _, err := dst.InsertOne(ctx, bson.D{{Key: "_id", Value: "extra"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := dst.UpdateOne(ctx, bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "changed"}}}}); err != nil {
			t.Fatal(err)
		}
		if err := dst.Indexes().DropOne(ctx, "a_b_compound"); err != nil {
			t.Fatal(err)
		}
		run(t, "mongorestore", "--drop", "--nsFrom", "src.*", "--nsTo", "dst1.*", filepath.Join(dir, "plain"))
		compareSnapshots(t, want, snapshotDB(t, c.Database("dst1")))
	})
	t.Run("gzip", func(t *testing.T) {
		run(t, "mongodump", "--db", "src", "--gzip", "-o", filepath.Join(dir, "gz"))
		run(t, "mongorestore", "--gzip", "--nsFrom", "src.*", "--nsTo", "dst2.*", filepath.Join(dir, "gz"))
		compareSnapshots(t, want, snapshotDB(t, c.Database("dst2")))
	})
	t.Run("archive", func(t *testing.T) {
		arch := filepath.Join(dir, "src.archive")
		run(t, "mongodump", "--db", "src", "--archive="+arch)
		run(t, "mongorestore", "--archive="+arch, "--nsFrom", "src.*", "--nsTo", "dst3.*")
		compareSnapshots(t, want, snapshotDB(t, c.Database("dst3")))
	})
	t.Run("preserveUUID", func(t *testing.T) {
		// Into another server, where the UUIDs are free.
		other := startServer(t)
		out, err := runTool(t, tools, "mongorestore", "--uri", other.uri(), "--drop", "--preserveUUID", filepath.Join(dir, "plain"))
		if err != nil {
			t.Fatalf("mongorestore --preserveUUID: %v\n%s", err, out)
		}
		oc := connect(t, other)
		compareSnapshots(t, want, snapshotDB(t, oc.Database("src")))
		if got, want := collectionUUIDs(t, oc.Database("src")), collectionUUIDs(t, c.Database("src")); got != want {
			t.Fatalf("UUIDs after --preserveUUID: %s, want %s", got, want)
		}
	})
	t.Run("gzip archive drop", func(t *testing.T) {
		arch := filepath.Join(dir, "src.archive.gz")
		run(t, "mongodump", "--db", "src", "--gzip", "--archive="+arch)
		run(t, "mongorestore", "--gzip", "--archive="+arch, "--nsFrom", "src.*", "--nsTo", "dst4.*")
		run(t, "mongorestore", "--drop", "--gzip", "--archive="+arch, "--nsFrom", "src.*", "--nsTo", "dst4.*")
		compareSnapshots(t, want, snapshotDB(t, c.Database("dst4")))
	})
}

// TestToolsExportImport: mongoexport then mongoimport, through the real
// binaries: canonical extended JSON reproduces every document of every
// type byte for byte, and CSV with typed --fields reproduces the
// exported columns.
func TestToolsExportImport(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongoimport")
	s := startServer(t)
	c := connect(t, s)
	seedToolsDB(t, c.Database("src"))
	want := snapshotDB(t, c.Database("src"))["mixed"].docs
	run := func(t *testing.T, tool string, args ...string) string {
		t.Helper()
		out, err := runTool(t, tools, tool, append([]string{"--uri", s.uri()}, args...)...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
		}
		return out
	}
	dir := t.TempDir()
	ctx := context.Background()

	t.Run("json", func(t *testing.T) {
		file := filepath.Join(dir, "mixed.json")
		run(t, "mongoexport", "--db", "src", "-c", "mixed", "--jsonFormat=canonical", "--sort", "{_id: 1}", "-o", file)
		out := run(t, "mongoimport", "--db", "imp", "-c", "mixed", file)
		if !strings.Contains(out, fmt.Sprintf("%d document(s) imported successfully", toolsDocs)) {
			t.Fatalf("mongoimport:\n%s", out)
		}
		got := snapshotDB(t, c.Database("imp"))["mixed"].docs
		if len(got) != len(want) {
			t.Fatalf("imported %d documents, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("document %d = %s, want %s", i, got[i], want[i])
			}
		}
		// --mode upsert replaces each document with itself: unchanged.
		run(t, "mongoimport", "--db", "imp", "-c", "mixed", "--mode", "upsert", file)
		got = snapshotDB(t, c.Database("imp"))["mixed"].docs
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("after --mode upsert, document %d = %s, want %s", i, got[i], want[i])
			}
		}
	})
	t.Run("csv", func(t *testing.T) {
		file := filepath.Join(dir, "mixed.csv")
		run(t, "mongoexport", "--db", "src", "-c", "mixed", "--type", "csv", "--fields", "_id,s,a,b", "--noHeaderLine", "--sort", "{_id: 1}", "-o", file)
		out := run(t, "mongoimport", "--db", "imp", "-c", "csv", "--type", "csv", "--columnsHaveTypes",
			"--fields", "_id.int32(),s.string(),a.int32(),b.string()", file)
		if !strings.Contains(out, fmt.Sprintf("%d document(s) imported successfully", toolsDocs)) {
			t.Fatalf("mongoimport:\n%s", out)
		}
		proj := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetProjection(bson.D{{Key: "s", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: 1}})
		var wantCols, gotCols []bson.Raw
		for db, dst := range map[string]*[]bson.Raw{"src": &wantCols, "imp": &gotCols} {
			coll := "mixed"
			if db == "imp" {
				coll = "csv"
			}
			cur, err := c.Database(db).Collection(coll).Find(ctx, bson.D{}, proj)
			if err != nil {
				t.Fatal(err)
			}
			if err := cur.All(ctx, dst); err != nil {
				t.Fatal(err)
			}
		}
		if len(gotCols) != len(wantCols) {
			t.Fatalf("imported %d rows, want %d", len(gotCols), len(wantCols))
		}
		for i := range wantCols {
			if !bytes.Equal(gotCols[i], wantCols[i]) {
				t.Fatalf("row %d = %s, want %s", i, gotCols[i], wantCols[i])
			}
		}
	})
}

// collectionUUIDs renders the name and UUID of each collection of db.
func collectionUUIDs(t *testing.T, db *mongo.Database) string {
	t.Helper()
	ctx := context.Background()
	cur, err := db.ListCollections(ctx, bson.D{}, options.ListCollections().SetNameOnly(false))
	if err != nil {
		t.Fatal(err)
	}
	var infos []bson.Raw
	if err := cur.All(ctx, &infos); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ci := range infos {
		_, u := ci.Lookup("info", "uuid").Binary()
		out = append(out, fmt.Sprintf("%s:%x", ci.Lookup("name").StringValue(), u))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}
