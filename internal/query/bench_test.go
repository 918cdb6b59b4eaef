package query

import "testing"

// A typical queue/job and recent-n document.
const benchDoc = `{"_id": {"$oid": "5f1d7b1e8c9d2b0001a1b2c3"}, "category": "Politics", "ts": {"$date": "2024-01-02T03:04:05Z"},
 "startTime": null, "priority": 5, "createdOn": {"$date": "2024-01-01T00:00:00Z"},
 "payload": {"type": "email", "to": "x@example.com", "attempts": 2},
 "metadata": [{"key": "camera", "value": "Canon"}, {"key": "iso", "value": 200}, {"key": "flash", "value": "no"}],
 "tags": ["a", "b", "c", "d"]}`

func benchMatch(b *testing.B, filter string, want bool) {
	f, err := Parse(doc(b, filter))
	if err != nil {
		b.Fatal(err)
	}
	d := doc(b, benchDoc)
	if f.Match(d) != want {
		b.Fatalf("match != %v", want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Match(d)
	}
}

func BenchmarkMatchEquality(b *testing.B) {
	benchMatch(b, `{"category": "Politics", "priority": {"$gte": 3}}`, true)
}

func BenchmarkMatchIn(b *testing.B) {
	benchMatch(b, `{"category": {"$in": ["Business", "Politics", "Sports"]}, "ts": {"$lt": {"$date": "2025-01-01T00:00:00Z"}}}`, true)
}

func BenchmarkMatchQueue(b *testing.B) {
	benchMatch(b, `{"startTime": null, "payload.type": "email"}`, true)
}

func BenchmarkMatchAllElemMatch(b *testing.B) {
	benchMatch(b, `{"metadata": {"$all": [{"$elemMatch": {"key": "camera", "value": "Canon"}}, {"$elemMatch": {"key": "iso", "value": 200}}]}}`, true)
}

func BenchmarkMatchArrayMiss(b *testing.B) {
	benchMatch(b, `{"tags": "z", "metadata.key": "nope"}`, false)
}

func BenchmarkMatchRegex(b *testing.B) {
	benchMatch(b, `{"payload.to": {"$regex": "^x@"}}`, true)
}

func BenchmarkSortKey(b *testing.B) {
	s, _ := ParseSort(doc(b, `{"priority": -1, "createdOn": 1}`))
	d := doc(b, benchDoc)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Key(d)
	}
}
