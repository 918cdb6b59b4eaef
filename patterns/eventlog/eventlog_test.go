package eventlog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/internal/plantest"
)

const seedLine = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`

func TestParseCombined(t *testing.T) {
	e, err := ParseCombined(seedLine)
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Host: "127.0.0.1", User: "frank", Time: time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC),
		Method: "GET", Path: "/apache_pb.gif", Protocol: "HTTP/1.0", Status: 200, Size: 2326,
		Referer: "http://www.example.com/start.html", UserAgent: "Mozilla/4.08 [en] (Win98; I ;Nav)"}
	if e != want {
		t.Fatalf("got  %+v\nwant %+v", e, want)
	}
	ok := []struct {
		line string
		path string
		ua   string
	}{
		{`::1 - - [01/Jan/2024:00:00:00 +0000] "POST /a?b=1 HTTP/1.1" 204 - "-" "-"`, "/a?b=1", ""},
		{`h - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 5`, "/", ""}, // common format
		{`h - - [01/Jan/2024:00:00:00 +0000] "GET /q HTTP/1.1" 200 5 "-" "say \"hi\""`, "/q", `say "hi"`},
		{`h - - [01/Jan/2024:00:00:00 +0000] "-" 408 0 "-" "-"`, "-", ""},
	}
	for _, tc := range ok {
		e, err := ParseCombined(tc.line)
		if err != nil || e.Path != tc.path || e.UserAgent != tc.ua {
			t.Errorf("ParseCombined(%q) = %+v, %v", tc.line, e, err)
		}
	}
	bad := []struct {
		line string
		col  int
		msg  string
	}{
		{``, 1, "line ends before the host"},
		{`h - -`, 6, "expected [ before the time"},
		{`h - - [10/Oct/2000:13:55:36 -0700`, 7, "unterminated [ of the time"},
		{`h - - [2000-10-10 13:55:36] "GET / HTTP/1.0" 200 1`, 8, `time "2000-10-10 13:55:36" is not dd/Mon/yyyy:hh:mm:ss -zzzz`},
		{`h - - [10/Oct/2000:13:55:36 -0700] GET / 200 1`, 36, "expected \" before the request"},
		{`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0 200 1`, 36, "unterminated quote of the request"},
		{`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" OK 1`, 53, `status "OK" is not a 3-digit number`},
		{`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 12k`, 57, `size "12k" is not a number or -`},
		{`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200`, 56, "line ends before the size"},
		{`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1 "ref"`, 64, "expected \" before the user agent"},
	}
	for _, junk := range []string{`extra`, `"another quoted field"`, `123 456`} {
		line := `h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1 "ref" "ua" ` + junk
		bad = append(bad, struct {
			line string
			col  int
			msg  string
		}{line, strings.Index(line, junk) + 1, fmt.Sprintf("unexpected text %q after the user agent", junk)})
	}
	for _, tc := range bad {
		_, err := ParseCombined(tc.line)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Col != tc.col || pe.Msg != tc.msg {
			t.Errorf("ParseCombined(%q) error = %v, want column %d: %s", tc.line, err, tc.col, tc.msg)
		}
	}
}

func openLog(t *testing.T) *Log {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return New(db.Client().Database("event_db").Collection("events"))
}

func event(host, path string, at time.Time) Event {
	return Event{Host: host, Path: path, Time: at, Status: 200, Method: "GET"}
}

func TestInsertAndQuery(t *testing.T) {
	ctx := context.Background()
	l := openLog(t)
	if err := l.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	e, _ := ParseCombined(seedLine)
	for _, d := range []Durability{W0, W1, Journaled} {
		if err := l.Insert(ctx, e, d); err != nil {
			t.Fatalf("insert %s: %v", d, err)
		}
	}
	day := time.Date(2000, 10, 10, 0, 0, 0, 0, time.UTC)
	var batch []Event
	for i := 0; i < 48; i++ {
		host := fmt.Sprintf("10.0.0.%d", i%3)
		path := []string{"/a", "/b"}[i%2]
		batch = append(batch, event(host, path, day.Add(time.Duration(i)*time.Hour)))
	}
	for _, d := range []Durability{W1, Journaled} {
		n, err := l.InsertMany(ctx, Events(batch[:24]), d, d == W1)
		if err != nil || n != 24 {
			t.Fatalf("InsertMany %s: %d, %v", d, n, err)
		}
		batch = batch[24:]
	}
	if n, err := l.InsertMany(ctx, Events([]Event{e}), W0, true); err != nil || n != 1 {
		t.Fatalf("InsertMany w0 ordered: %d, %v", n, err)
	}
	// w:0 writes are not acknowledged; wait until the server applied them.
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := l.Collection().CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		if n == 52 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events stored, want 52", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	check := func(name string, got []Event, err error, want int) {
		t.Helper()
		if err != nil || len(got) != want {
			t.Fatalf("%s: %d events (%v), want %d", name, len(got), err, want)
		}
	}
	got, err := l.ByPath(ctx, "/apache_pb.gif")
	check("ByPath seed", got, err, 4)
	got, err = l.ByPath(ctx, "/a")
	check("ByPath /a", got, err, 24)
	got, err = l.ByDay(ctx, day)
	check("ByDay 2000-10-10", got, err, 24+4)
	got, err = l.ByHostDay(ctx, "10.0.0.1", day.AddDate(0, 0, 1))
	check("ByHostDay", got, err, 8)
	hits, err := l.HitsPerPathPerDay(ctx, time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := []Hits{
		{"/a", 2000, 10, 10, 12}, {"/a", 2000, 10, 11, 12},
		{"/apache_pb.gif", 2000, 10, 10, 4},
		{"/b", 2000, 10, 10, 12}, {"/b", 2000, 10, 11, 12},
	}
	if fmt.Sprint(hits) != fmt.Sprint(want) {
		t.Fatalf("hits %v\nwant %v", hits, want)
	}

	// Each query is an index scan of the index the seed recommends for it.
	dr := dayRange(day)
	db := l.Collection().Database()
	for _, q := range []struct {
		name   string
		filter bson.D
		index  string
		n      int64
	}{
		{"ByPath", bson.D{{Key: "path", Value: "/a"}}, "path_1", 24},
		{"ByDay", bson.D{{Key: "time", Value: dr}}, "time_1", 28},
		{"ByHostDay", bson.D{{Key: "host", Value: "10.0.0.1"}, {Key: "time", Value: dayRange(day.AddDate(0, 0, 1))}}, "host_1_time_1", 8},
	} {
		reply := plantest.Explain(t, db, bson.D{{Key: "find", Value: "events"}, {Key: "filter", Value: q.filter}, {Key: "sort", Value: bson.D{{Key: "time", Value: 1}}}})
		plan := plantest.WinningPlan(t, reply)
		if ix := plantest.IndexNames(plan); len(ix) != 1 || ix[0] != q.index {
			t.Errorf("%s: plan %v uses indexes %v, want %s", q.name, plantest.Stages(plan), ix, q.index)
		}
		if n := plantest.ExecInt(t, reply, "totalDocsExamined"); n != q.n {
			t.Errorf("%s: examined %d documents, want exactly the %d it returns", q.name, n, q.n)
		}
	}
	// The aggregation's $match on time is an index scan of {time: 1}.
	reply := plantest.Explain(t, db, bson.D{{Key: "aggregate", Value: "events"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "time", Value: dr}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$path"}, {Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}}, {Key: "cursor", Value: bson.D{}}})
	if !strings.Contains(reply.String(), `"indexName": "time_1"`) {
		t.Errorf("HitsPerPathPerDay's $match does not use time_1: %v", reply)
	}
}

func TestBulkContinueOnError(t *testing.T) {
	ctx := context.Background()
	l := openLog(t)
	at := time.Date(2000, 10, 10, 0, 0, 0, 0, time.UTC)
	docs := func(prefix string) []any {
		return []any{
			bson.D{{Key: "_id", Value: prefix + "1"}, {Key: "path", Value: "/x"}, {Key: "time", Value: at}},
			bson.D{{Key: "_id", Value: "dup"}, {Key: "path", Value: "/x"}, {Key: "time", Value: at}},
			bson.D{{Key: "_id", Value: prefix + "2"}, {Key: "path", Value: "/x"}, {Key: "time", Value: at}},
			bson.D{{Key: "_id", Value: "dup"}, {Key: "path", Value: "/x"}, {Key: "time", Value: at}},
			bson.D{{Key: "_id", Value: prefix + "3"}, {Key: "path", Value: "/x"}, {Key: "time", Value: at}},
		}
	}
	// Unordered: everything but the second "dup" goes in; both failures are
	// reported (the seed's continue_on_error reported only the last).
	n, err := l.InsertMany(ctx, docs("u"), W1, false)
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || n != 4 || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 3 || bwe.WriteErrors[0].Code != 11000 {
		t.Fatalf("unordered: n=%d err=%v", n, err)
	}
	// Ordered: stops at the first duplicate (index 1).
	n, err = l.InsertMany(ctx, docs("o"), W1, true)
	if !errors.As(err, &bwe) || n != 1 || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 {
		t.Fatalf("ordered: n=%d err=%v", n, err)
	}
	c, err := l.Collection().CountDocuments(ctx, bson.D{})
	if err != nil || c != 5 {
		t.Fatalf("%d documents, want 5 (%v)", c, err)
	}
}
