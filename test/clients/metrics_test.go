package clients

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestMetricsEndpoint scrapes lode serve --metrics-addr as Prometheus
// would and parses the text format with Prometheus' own parser: the
// opcounters, latency histograms, connections, open cursors, storage
// engine and memory figures are there and follow what the test did.
func TestMetricsEndpoint(t *testing.T) {
	maddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s := startServer(t, "--metrics-addr", maddr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri() + "?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	coll := client.Database("m").Collection("c")
	docs := make([]any, 50)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx) // open while the metrics are read

	resp, err := http.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	var parser expfmt.TextParser
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the Prometheus text parser refuses the metrics: %v", err)
	}
	value := func(name string, labels map[string]string) (float64, *dto.Metric) {
		t.Helper()
		return metricSample(t, fams, name, labels)
	}
	if v, _ := value("lode_opcounters_total", map[string]string{"type": "insert"}); v != 50 {
		t.Errorf("lode_opcounters_total{type=insert} = %v, want 50", v)
	}
	if v, _ := value("lode_opcounters_total", map[string]string{"type": "query"}); v < 1 {
		t.Errorf("lode_opcounters_total{type=query} = %v, want the find", v)
	}
	if v, _ := value("lode_connections_current", nil); v < 1 {
		t.Errorf("lode_connections_current = %v", v)
	}
	if v, _ := value("lode_cursors_open", nil); v != 1 {
		t.Errorf("lode_cursors_open = %v, want the find's cursor", v)
	}
	if v, _ := value("lode_storage_block_cache_max_bytes", nil); v != 512<<20 {
		t.Errorf("lode_storage_block_cache_max_bytes = %v, want the default 512 MiB", v)
	}
	if v, _ := value("lode_storage_open_tables_max", nil); v < 256 || v > 32768 {
		t.Errorf("lode_storage_open_tables_max = %v, want 256 to 32,768", v)
	}
	if v, _ := value("lode_documents_total", map[string]string{"op": "inserted"}); v != 50 {
		t.Errorf("lode_documents_total{op=inserted} = %v, want 50", v)
	}
	for _, class := range []string{"reads", "writes", "commands"} {
		_, m := value("lode_op_latency_seconds", map[string]string{"class": class})
		h := m.GetHistogram()
		if h.GetSampleCount() == 0 || len(h.GetBucket()) < 10 {
			t.Errorf("lode_op_latency_seconds{class=%s}: %d samples, %d buckets", class, h.GetSampleCount(), len(h.GetBucket()))
		}
		if b := h.GetBucket(); len(b) > 0 && b[len(b)-1].GetCumulativeCount() > h.GetSampleCount() {
			t.Errorf("lode_op_latency_seconds{class=%s}: buckets above the count", class)
		}
	}
	if v, _ := value("process_resident_memory_bytes", nil); v <= 0 {
		t.Errorf("process_resident_memory_bytes = %v", v)
	}
	if v, _ := value("go_memstats_heap_alloc_bytes", nil); v <= 0 {
		t.Errorf("go_memstats_heap_alloc_bytes = %v", v)
	}
}

// metricSample is the value of the first sample of a scraped metric
// whose labels include labels, and the sample.
func metricSample(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, *dto.Metric) {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no metric %s", name)
	}
next:
	for _, m := range f.Metric {
		for _, l := range m.Label {
			if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
				continue next
			}
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			return m.GetCounter().GetValue(), m
		case dto.MetricType_GAUGE:
			return m.GetGauge().GetValue(), m
		case dto.MetricType_UNTYPED:
			return m.GetUntyped().GetValue(), m
		}
		return 0, m
	}
	t.Fatalf("no %s with labels %v", name, labels)
	return 0, nil
}
