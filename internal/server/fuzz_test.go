package server

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/wire"
)

var (
	fuzzOnce sync.Once
	fuzzAddr string
)

// fuzzServer is one server on a temporary engine, listening on loopback,
// shared by every input of a fuzzing run (opening an engine per input
// would be too slow). It returns the address.
func fuzzServer(t *testing.T) string {
	fuzzOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lode-fuzz-")
		if err != nil {
			t.Fatal(err)
		}
		eng, err := engine.Open(dir, engine.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		s := New(eng, Config{Logger: slog.New(slog.DiscardHandler), MessageTimeout: time.Second})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go s.Serve(ln)
		fuzzAddr = ln.Addr().String()
	})
	return fuzzAddr
}

func fuzzCmd(kv ...any) []byte {
	b := bsoncore.NewDocumentBuilder()
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case string:
			b.AppendString(k, v)
		case int:
			b.AppendInt32(k, int32(v))
		case bool:
			b.AppendBoolean(k, v)
		case []byte:
			b.AppendDocument(k, v)
		case bsoncore.Array:
			b.AppendArray(k, v)
		}
	}
	return b.Build()
}

// FuzzServe feeds raw bytes to a connection of a real server, the whole
// path: framing, OP_MSG sections, BSON, command dispatch, the engine. Each
// input must end with the connection closed by the server or the input
// exhausted, within seconds, and every reply must be a well-formed
// message; a panic anywhere fails the run (dispatch turns handler panics
// into InternalError replies, which is allowed).
func FuzzServe(f *testing.F) {
	doc := fuzzCmd("_id", 1, "a", "x")
	docs := bsoncore.NewArrayBuilder().AppendDocument(doc).Build()
	seeds := [][]byte{
		fuzzCmd("ping", 1, "$db", "admin"),
		fuzzCmd("hello", 1, "$db", "admin"),
		fuzzCmd("insert", "c", "documents", docs, "$db", "f"),
		fuzzCmd("find", "c", "filter", fuzzCmd("a", fuzzCmd("$in", bsoncore.NewArrayBuilder().AppendString("x").AppendInt32(3).Build())), "batchSize", 1, "$db", "f"),
		fuzzCmd("update", "c", "updates", bsoncore.NewArrayBuilder().AppendDocument(fuzzCmd("q", fuzzCmd("_id", 1), "u", fuzzCmd("$inc", fuzzCmd("n", 1)))).Build(), "$db", "f"),
		fuzzCmd("aggregate", "c", "pipeline", bsoncore.NewArrayBuilder().AppendDocument(fuzzCmd("$group", fuzzCmd("_id", "$a", "n", fuzzCmd("$sum", 1)))).Build(), "cursor", fuzzCmd(), "$db", "f"),
		fuzzCmd("findAndModify", "c", "query", fuzzCmd(), "sort", fuzzCmd("_id", 1), "remove", true, "$db", "f"),
		fuzzCmd("createIndexes", "c", "indexes", bsoncore.NewArrayBuilder().AppendDocument(fuzzCmd("key", fuzzCmd("a", 1), "name", "a_1")).Build(), "$db", "f"),
		fuzzCmd("find", "oplog.rs", "filter", fuzzCmd("ns", "f.c"), "sort", fuzzCmd("$natural", -1), "limit", 1, "$db", "local"),
		fuzzCmd("applyOps", bsoncore.NewArrayBuilder().AppendDocument(fuzzCmd("op", "u", "ns", "f.c", "o", fuzzCmd("$v", 2, "diff", fuzzCmd("u", fuzzCmd("a", 2), "sarr", fuzzCmd("a", true, "l", 1))), "o2", fuzzCmd("_id", 1))).Build(), "$db", "admin"),
	}
	for i, s := range seeds {
		f.Add(wire.AppendMsg(nil, int32(i+1), 0, 0, s))
	}
	f.Add(wire.AppendMsgSequences(nil, 9, 0, 0, fuzzCmd("insert", "c", "$db", "f"), wire.Sequence{Identifier: "documents", Documents: []bsoncore.Document{doc}}))
	f.Add(wire.AppendQuery(nil, 10, 0, "admin.$cmd", 0, -1, fuzzCmd("isMaster", 1), nil))
	f.Add(append(wire.AppendMsg(nil, 11, 0, wire.ChecksumPresent, seeds[0]), wire.AppendMsg(nil, 12, 0, wire.MoreToCome, seeds[2])...))
	f.Fuzz(func(t *testing.T, data []byte) {
		nc, err := net.Dial("tcp", fuzzServer(t))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		// The input, then end of stream: the server answers what it can
		// and closes the connection (or gives up on an unfinished message
		// after MessageTimeout). Every reply must be well formed, and it
		// must all end within the deadline.
		_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
		go func() {
			_, _ = nc.Write(data)
			_ = nc.(*net.TCPConn).CloseWrite()
		}()
		r := bufio.NewReader(nc)
		for {
			m, err := wire.ReadMessage(r)
			if errors.Is(err, io.EOF) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the server neither answered nor closed the connection within 10 s")
			}
			if err != nil {
				var pe *wire.ProtocolError
				if errors.As(err, &pe) {
					t.Fatalf("a reply is not a well-formed message: %v", err)
				}
				return // reset by the server: it closed on a fatal framing error
			}
			if m == nil {
				t.Fatal("nil reply")
			}
		}
	})
}
