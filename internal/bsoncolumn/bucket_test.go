package bsoncolumn

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func marshal(t testing.TB, d any) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCompressBucket(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	at := func(s int) bson.DateTime { return bson.NewDateTimeFromTime(t0.Add(time.Duration(s) * time.Second)) }
	id := bson.NewObjectID()
	v1 := bson.D{
		{Key: "_id", Value: id},
		{Key: "control", Value: bson.D{
			{Key: "version", Value: int32(1)},
			{Key: "min", Value: bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: at(0)}, {Key: "status", Value: 200}}},
			{Key: "max", Value: bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: at(20)}, {Key: "status", Value: 404}}},
		}},
		{Key: "meta", Value: "host1"},
		{Key: "data", Value: bson.D{
			{Key: "status", Value: bson.D{{Key: "0", Value: int32(200)}, {Key: "2", Value: int32(404)}}},
			{Key: "t", Value: bson.D{{Key: "0", Value: at(10)}, {Key: "1", Value: at(0)}, {Key: "2", Value: at(20)}}},
			{Key: "_id", Value: bson.D{{Key: "0", Value: int32(1)}, {Key: "1", Value: int32(2)}, {Key: "2", Value: int32(3)}}},
			{Key: "path", Value: bson.D{{Key: "1", Value: "/a"}}},
		}},
	}
	v2, err := CompressBucket(marshal(t, v1), "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := v2.Validate(); err != nil {
		t.Fatalf("invalid document: %v", err)
	}
	// Shape: _id, control{version 2, min, max, count}, meta, data{t first}.
	var keys []string
	elems, _ := v2.Elements()
	for _, e := range elems {
		keys = append(keys, e.Key())
	}
	if fmt.Sprint(keys) != "[_id control meta data]" {
		t.Errorf("top-level keys %v", keys)
	}
	ctl := v2.Lookup("control").Document()
	celems, _ := ctl.Elements()
	keys = keys[:0]
	for _, e := range celems {
		keys = append(keys, e.Key())
	}
	if fmt.Sprint(keys) != "[version min max count]" {
		t.Errorf("control keys %v", keys)
	}
	if v := ctl.Lookup("version").Int32(); v != 2 {
		t.Errorf("version %d", v)
	}
	if v := ctl.Lookup("count").Int32(); v != 3 {
		t.Errorf("count %d", v)
	}
	if !IsCompressed(v2) || IsCompressed(marshal(t, v1)) {
		t.Errorf("IsCompressed wrong")
	}
	delems, _ := v2.Lookup("data").Document().Elements()
	keys = keys[:0]
	for _, e := range delems {
		keys = append(keys, e.Key())
		if sub, _ := e.Value().Binary(); sub != 7 {
			t.Errorf("data.%s subtype %d", e.Key(), sub)
		}
	}
	if fmt.Sprint(keys) != "[t status _id path]" {
		t.Errorf("data keys %v", keys)
	}
	// Sorted by time: measurement 1 (t=0), 0 (t=10), 2 (t=20).
	col, _ := ColumnOf(v2.Lookup("data", "status"))
	vals, err := Decode(col)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 3 || vals[0].Type != 0 || vals[1].Int32() != 200 || vals[2].Int32() != 404 {
		t.Errorf("status column %v", vals)
	}

	back, err := DecompressBucket(v2)
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{
		{Key: "_id", Value: id},
		{Key: "control", Value: bson.D{
			{Key: "version", Value: int32(1)},
			{Key: "min", Value: bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: at(0)}, {Key: "status", Value: 200}}},
			{Key: "max", Value: bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: at(20)}, {Key: "status", Value: 404}}},
		}},
		{Key: "meta", Value: "host1"},
		{Key: "data", Value: bson.D{
			{Key: "t", Value: bson.D{{Key: "0", Value: at(0)}, {Key: "1", Value: at(10)}, {Key: "2", Value: at(20)}}},
			{Key: "status", Value: bson.D{{Key: "1", Value: int32(200)}, {Key: "2", Value: int32(404)}}},
			{Key: "_id", Value: bson.D{{Key: "0", Value: int32(2)}, {Key: "1", Value: int32(1)}, {Key: "2", Value: int32(3)}}},
			{Key: "path", Value: bson.D{{Key: "0", Value: "/a"}}},
		}},
	}
	if !bytes.Equal(back, marshal(t, want)) {
		t.Errorf("decompressed\n%v\nwant\n%v", back, bsoncore.Document(marshal(t, want)))
	}
	if _, err := DecompressBucket(marshal(t, v1)); err == nil {
		t.Errorf("decompressing a version-1 bucket succeeded")
	}
}

func TestCompressBucketRefuses(t *testing.T) {
	dt := bson.NewDateTimeFromTime(time.Unix(0, 0))
	for name, b := range map[string]bson.D{
		"no time": {{Key: "control", Value: bson.D{{Key: "version", Value: 1}}}, {Key: "data", Value: bson.D{{Key: "x", Value: bson.D{{Key: "0", Value: 1}}}}}},
		"extra key": {{Key: "control", Value: bson.D{{Key: "version", Value: 1}}}, {Key: "data", Value: bson.D{
			{Key: "t", Value: bson.D{{Key: "0", Value: dt}}},
			{Key: "x", Value: bson.D{{Key: "0", Value: 1}, {Key: "1", Value: 2}}},
		}}},
		"time not a date": {{Key: "control", Value: bson.D{{Key: "version", Value: 1}}}, {Key: "data", Value: bson.D{
			{Key: "t", Value: bson.D{{Key: "0", Value: 5}}},
		}}},
	} {
		if _, err := CompressBucket(marshal(t, b), "t"); err == nil {
			t.Errorf("%s: compressed", name)
		}
	}
}

// An unpack stage's way through a compressed bucket: the columns side by
// side, one iterator each, no version-1 bucket built.
func TestDataColumnsSideBySide(t *testing.T) {
	v1 := eventBucket(300)
	v2, err := CompressBucket(v1, "time")
	if err != nil {
		t.Fatal(err)
	}
	cols, err := DataColumns(v2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 4 || string(cols[0].Name) != "time" {
		t.Fatalf("columns %v", cols)
	}
	// The reference: the decompressed bucket's data.<field>.<row>.
	back, err := DecompressBucket(v2)
	if err != nil {
		t.Fatal(err)
	}
	its := make([]Iterator, len(cols))
	for i := range cols {
		its[i].Reset(cols[i].Column)
	}
	for row := 0; ; row++ {
		v, ok := its[0].Next()
		if !ok {
			if row != 300 {
				t.Fatalf("%d rows", row)
			}
			break
		}
		for i := range cols {
			if i > 0 {
				v, _ = its[i].Next()
			}
			want, err := back.LookupErr("data", string(cols[i].Name), fmt.Sprint(row))
			if err != nil {
				want = bsoncore.Value{}
			}
			if v.Type != want.Type || !bytes.Equal(v.Data, want.Data) {
				t.Fatalf("row %d %s: %v want %v", row, cols[i].Name, v, want)
			}
		}
	}
	for i := range its {
		if err := its[i].Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// A version-2 bucket as mongod writes it, its columns built by hand from the
// format: the time column a date literal and deltas of deltas, a nested
// object column in interleaved mode.
func TestDecompressHandBuiltBucket(t *testing.T) {
	t0 := int64(1700000000000)
	timeCol := cat(literal(vDate(t0)), []byte{0x80}, block(13|2000<<4|0<<34), []byte{0}) // +1000 ms, +1000 ms
	ref := vDoc(bson.D{{Key: "cpu", Value: 0.5}, {Key: "mem", Value: int32(10)}})
	// cpu at scale index 1 (x10): 5 -> 6 -> 6 -> skip; mem: +1, skip, +2.
	cpu := block(12 | 2<<4 | 0<<24 | uint64(1<<20-1)<<44)
	mem := block(12 | 2<<4 | uint64(1<<20-1)<<24 | 4<<44)
	objCol := cat([]byte{0xF1}, ref.Data, []byte{0xA0}, cpu, []byte{0x80}, mem, []byte{0}, []byte{0})
	id := bson.NewObjectID()
	v2 := bson.D{
		{Key: "_id", Value: id},
		{Key: "control", Value: bson.D{{Key: "version", Value: int32(2)}, {Key: "min", Value: bson.D{}}, {Key: "max", Value: bson.D{}}, {Key: "count", Value: int32(3)}}},
		{Key: "meta", Value: "m"},
		{Key: "data", Value: bson.D{
			{Key: "t", Value: bson.Binary{Subtype: 7, Data: timeCol}},
			{Key: "stats", Value: bson.Binary{Subtype: 7, Data: objCol}},
		}},
	}
	got, err := DecompressBucket(marshal(t, v2))
	if err != nil {
		t.Fatal(err)
	}
	dt := func(ms int64) bson.DateTime { return bson.DateTime(ms) }
	want := bson.D{
		{Key: "_id", Value: id},
		{Key: "control", Value: bson.D{{Key: "version", Value: int32(1)}, {Key: "min", Value: bson.D{}}, {Key: "max", Value: bson.D{}}}},
		{Key: "meta", Value: "m"},
		{Key: "data", Value: bson.D{
			{Key: "t", Value: bson.D{{Key: "0", Value: dt(t0)}, {Key: "1", Value: dt(t0 + 1000)}, {Key: "2", Value: dt(t0 + 2000)}}},
			{Key: "stats", Value: bson.D{
				{Key: "0", Value: bson.D{{Key: "cpu", Value: 0.6}, {Key: "mem", Value: int32(11)}}},
				{Key: "1", Value: bson.D{{Key: "cpu", Value: 0.6}}},
				{Key: "2", Value: bson.D{{Key: "mem", Value: int32(13)}}},
			}},
		}},
	}
	if !bytes.Equal(got, marshal(t, want)) {
		t.Errorf("got\n%v\nwant\n%v", got, bsoncore.Document(marshal(t, want)))
	}
	// And our own compression of that version-1 bucket decodes the same.
	again, err := CompressBucket(got, "t")
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecompressBucket(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, got) {
		t.Errorf("round trip changed the bucket")
	}
}

func TestIteratorDoesNotAllocate(t *testing.T) {
	var vals []bsoncore.Value
	for i := 0; i < 1000; i++ {
		vals = append(vals, vDate(1700000000000+int64(i*i)), vInt32(int32(i%7)), vDouble(float64(i)/4), skip)
	}
	col := Encode(vals)
	var it Iterator
	it.Reset(col)
	for _, ok := it.Next(); ok; _, ok = it.Next() {
	}
	allocs := testing.AllocsPerRun(20, func() {
		it.Reset(col)
		for _, ok := it.Next(); ok; _, ok = it.Next() {
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass over a numeric column", allocs)
	}
}
