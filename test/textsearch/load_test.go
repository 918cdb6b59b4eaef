package textsearch_test

import (
	"context"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestTextSearchLoad measures $text over N documents of a few English
// sentences each: the load time, the text index build time, the time per
// query (one term, two terms, a phrase; each sorted by textScore with
// limit 10) and the process's peak heap. N is LODE_TEXT_DOCS, else 2,000
// (100,000 under LODE_ACCEPTANCE=1):
//
//	LODE_TEXT_DOCS=100000 go test -run TestTextSearchLoad -v -timeout 30m ./test/textsearch
func TestTextSearchLoad(t *testing.T) {
	n := testenv.Size(2000, 100000)
	if s := os.Getenv("LODE_TEXT_DOCS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("LODE_TEXT_DOCS=%q: want a positive number", s)
		}
		n = v
	}
	_, db := testenv.Open(t)
	c := db.Collection("corpus")
	ctx := context.Background()

	peak := &peakHeap{}
	stop := peak.start()
	defer stop()

	gen := newSentenceGen(1)
	start := time.Now()
	const batch = 1000
	docs := make([]any, 0, batch)
	for i := 0; i < n; i++ {
		title := gen.sentence(4)
		if i%7 == 0 {
			title += " A quiet river at night." // the phrase query's target
		}
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "title", Value: title}, {Key: "body", Value: gen.paragraph(3)}})
		if len(docs) == batch || i == n-1 {
			if _, err := c.InsertMany(ctx, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	load := time.Since(start)
	start = time.Now()
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "title", Value: "text"}, {Key: "body", Value: "text"}},
		Options: options.Index().SetWeights(bson.D{{Key: "title", Value: 3}})}); err != nil {
		t.Fatal(err)
	}
	build := time.Since(start)
	afterBuild := peak.max.Load()
	t.Logf("docs %d: load %v (%.0f docs/s), text index build %v, peak heap so far %.1f MiB",
		n, load.Round(time.Millisecond), float64(n)/load.Seconds(), build.Round(time.Millisecond), mib(afterBuild))

	queries := []struct{ name, search string }{
		{"one term", "river"},
		{"two terms", "river mountain"},
		{"phrase", `"quiet river"`},
	}
	sortScore := bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}
	for _, q := range queries {
		const reps = 5
		var total time.Duration
		var got []bson.M
		for r := 0; r < reps; r++ {
			start := time.Now()
			cur, err := c.Find(ctx, textFilter(q.search), options.Find().SetProjection(bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}, {Key: "title", Value: 1}}).SetSort(sortScore).SetLimit(10))
			if err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			if err := cur.All(ctx, &got); err != nil {
				t.Fatal(err)
			}
			total += time.Since(start)
		}
		if len(got) == 0 || len(got) > 10 {
			t.Fatalf("%s: %d results, want 1..10", q.name, len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i]["score"].(float64) > got[i-1]["score"].(float64) {
				t.Fatalf("%s: results not in descending score order: %v", q.name, got)
			}
		}
		matches, err := c.CountDocuments(ctx, textFilter(q.search))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-9s %-16q %8d matches, %8.2f ms/query (top 10 by textScore)", q.name, q.search, matches, float64(total.Microseconds())/1000/reps)
	}
	stop()
	t.Logf("peak heap %.1f MiB (after the build %.1f MiB)", mib(peak.max.Load()), mib(afterBuild))
	// Memory stays bounded: the index build sorts with a spilling loader
	// and the queries keep a score per matching document plus a top-10.
	if limit := uint64(64<<20) + uint64(n)*4096; peak.max.Load() > limit {
		t.Fatalf("peak heap %.1f MiB over %.1f MiB", mib(peak.max.Load()), mib(limit))
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// peakHeap samples the heap in use every 10ms.
type peakHeap struct{ max atomic.Uint64 }

func (p *peakHeap) start() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > p.max.Load() {
				p.max.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// sentenceGen makes English-like sentences: common words (with stop
// words) drawn with a Zipf distribution, and a few rarer nature words the
// queries look for.
type sentenceGen struct {
	r    *rand.Rand
	zipf *rand.Zipf
}

var genWords = strings.Fields(`the of and to a in is it that was for on are as with his they at be this from
have or by one had not but what all were when we there can an your which their said if do will each about how up
out them then she many some so these would other into has more her two like him see time could no make than first
been its who now people my made over did down only way find use may water long little very after words called just
where most know get through back much go good new write our me man too any day same right look think also around
another came come work three word must because does part even place well such here take why things help put years
different away again off went old number great tell men say small every found still between name should home big
give air line set own under read last never us left end along while might next sound below saw something thought
both few those always looked show large often together asked house world going want school important until form food
keep children feet land side without boy once animals life enough took sometimes four head above kind began almost
live page got earth need far hand high year mother light parts country father let night following picture being study
second eyes soon times story boys since white days ever paper hard near sentence better best across during today others
however sure means knew trees city river mountain quiet forest valley bridge stone garden winter summer morning evening
village harbor island meadow storm silver golden ancient narrow gentle distant hidden bright`)

func newSentenceGen(seed int64) *sentenceGen {
	r := rand.New(rand.NewSource(seed))
	return &sentenceGen{r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(genWords)-1))}
}

func (g *sentenceGen) sentence(words int) string {
	var b strings.Builder
	for i := 0; i < words; i++ {
		w := genWords[g.zipf.Uint64()]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

func (g *sentenceGen) paragraph(sentences int) string {
	parts := make([]string, sentences)
	for i := range parts {
		parts[i] = g.sentence(8 + g.r.Intn(8))
	}
	return strings.Join(parts, " ")
}
