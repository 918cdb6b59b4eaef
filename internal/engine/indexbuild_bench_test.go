package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkIndexBuild measures the event log seed's index builds, ns per
// document: {path: 1} (a thousand values, grouped), {time: 1} (rising
// with the records, streamed) and {host: 1, time: 1} (fifty hosts, each
// rising in time), and {status: 1} (ten integers stored as doubles, as
// mongosh and the Node driver send them: type bits on every key), each
// over b.N events {time, host, path, status} loaded before
// the timer, as lodeperf's eventlog load makes them. Each is the first
// build after the load, as a createIndex after a bulk load is: its scan
// finds no record block in the block cache, and the sort's memory is
// new to the process (docs/benchmarks.md, fourteenth session, measures
// what each costs).
func BenchmarkIndexBuild(b *testing.B) {
	for _, ix := range []struct {
		name string
		key  bson.D
	}{
		{"path", bson.D{{Key: "path", Value: 1}}},
		{"time", bson.D{{Key: "time", Value: 1}}},
		{"host_time", bson.D{{Key: "host", Value: 1}, {Key: "time", Value: 1}}},
		{"status", bson.D{{Key: "status", Value: 1}}},
	} {
		b.Run(ix.name, func(b *testing.B) {
			e, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			r := rand.New(rand.NewPCG(1, 3))
			t0 := time.Unix(1700000000, 0)
			ctx := context.Background()
			batch := make([]bsoncore.Document, 0, 10000)
			for n := 0; n < b.N; n++ {
				batch = append(batch, bsoncore.NewDocumentBuilder().
					AppendObjectID("_id", bson.NewObjectID()).
					AppendDateTime("time", t0.Add(time.Duration(n)*time.Second).UnixMilli()).
					AppendString("host", fmt.Sprintf("host-%02d.example.net", r.IntN(50))).
					AppendString("path", fmt.Sprintf("/app/section-%d/page-%03d", r.IntN(10), r.IntN(100))).
					AppendDouble("status", float64(200+r.IntN(10))).
					Build())
				if len(batch) == cap(batch) || n == b.N-1 {
					if _, err := e.Insert(ctx, "db", "events", batch, WriteOptions{ValidBSON: true, IDFirst: true}); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
			}
			key, _ := bson.Marshal(ix.key)
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := e.CreateIndex("db", "events", IndexSpec{Key: key}); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkIndexBuildMetadata measures the metadata seed's key/value
// index build, ns per document: {"metadata.key": 1, "metadata.value": 1}
// over b.N images whose metadata array holds twelve {key, value} pairs,
// as lodeperf's metadata load makes them (a file name, sizes and
// timestamps nearly unique per image, camera makes and settings from a
// few values), so twelve keys a document through the multikey path.
func BenchmarkIndexBuildMetadata(b *testing.B) {
	e, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(1, 3))
	makes := []string{"Canon", "Nikon", "Sony", "Fujifilm", "Olympus", "Panasonic", "Pentax", "Leica", "Samsung", "Kodak"}
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	t0 := time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.Background()
	batch := make([]bsoncore.Document, 0, 5000)
	for n := 0; n < b.N; n++ {
		model := r.IntN(50)
		pairs := []struct {
			k string
			v bsoncore.Value
		}{
			{"File Name", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, fmt.Sprintf("img_%07d.jpg", n))}},
			{"File size", bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(20000+r.IntN(5000000)))}},
			{"MIME type", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, pick("image/jpeg", "image/png", "image/tiff"))}},
			{"Image size", bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: bsoncore.NewDocumentBuilder().AppendInt32("width", 1024).AppendInt32("height", 768).Build()}},
			{"Camera make", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, makes[model/5])}},
			{"Camera model", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, fmt.Sprintf("%s %d", makes[model/5], model%5))}},
			{"Image timestamp", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, t0.Add(time.Duration(r.IntN(365*24*3600))*time.Second).Format(time.RFC3339))}},
			{"Image number", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, fmt.Sprintf("%d-%d", 100+r.IntN(900), r.IntN(10000)))}},
			{"Exposure time", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, pick("1/500 s", "1/250 s", "1/125 s", "1/60 s"))}},
			{"Aperture", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, pick("F2.8", "F4.0", "F5.6", "F8.0"))}},
			{"Exposure bias", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, pick("-1 EV", "0 EV", "+1 EV"))}},
			{"Flash", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, pick("No, auto", "Yes, auto", "No", "Yes"))}},
		}
		arr := bsoncore.NewArrayBuilder()
		for _, p := range pairs {
			arr.AppendDocument(bsoncore.NewDocumentBuilder().AppendString("key", p.k).AppendValue("value", p.v).Build())
		}
		batch = append(batch, bsoncore.NewDocumentBuilder().
			AppendObjectID("_id", bson.NewObjectID()).
			AppendArray("metadata", arr.Build()).
			Build())
		if len(batch) == cap(batch) || n == b.N-1 {
			if _, err := e.Insert(ctx, "db", "images", batch, WriteOptions{ValidBSON: true, IDFirst: true}); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	key, _ := bson.Marshal(bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := e.CreateIndex("db", "images", IndexSpec{Key: key}); err != nil {
		b.Fatal(err)
	}
}
