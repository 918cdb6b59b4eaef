package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestMemClasses(t *testing.T) {
	for _, c := range []struct{ n, forN, ofN, round int }{
		{memMinSize - 1, -1, -1, memMinSize - 1},
		{memMinSize, 0, 0, memMinSize},
		{memMinSize + 1, 1, 0, 2 * memMinSize},
		{3 * memMinSize, 2, 1, 4 * memMinSize},
		{memMaxSize, memMaxShift - memMinShift, memMaxShift - memMinShift, memMaxSize},
		{memMaxSize + 1, -1, memMaxShift - memMinShift, memMaxSize + 1},
	} {
		if got := memClassFor(c.n); got != c.forN {
			t.Errorf("memClassFor(%d) = %d, want %d", c.n, got, c.forN)
		}
		if got := memClassOf(c.n); got != c.ofN {
			t.Errorf("memClassOf(%d) = %d, want %d", c.n, got, c.ofN)
		}
		if got := memRound(c.n); got != c.round {
			t.Errorf("memRound(%d) = %d, want %d", c.n, got, c.round)
		}
	}
}

// insertMsg is an insert of n documents {_id: i, tag} in a sequence.
func insertMsg(n int, tag string) ([]byte, []bsoncore.Document) {
	docs := make([]bsoncore.Document, n)
	for i := range docs {
		docs[i] = doc("_id", i, "tag", fmt.Sprintf("%s-%d", tag, i))
	}
	return AppendMsgSequences(nil, 1, 0, 0, doc("insert", "c", "$db", "test"),
		Sequence{Identifier: "documents", Documents: docs}), docs
}

// TestRecycleReusesMemory: a recycled message's buffer serves the next
// message of its size class, which reads correctly from it, and what the
// recycled message referred to is overwritten (poisoned here).
func TestRecycleReusesMemory(t *testing.T) {
	SetPoisonRecycled(true)
	defer SetPoisonRecycled(false)
	reused := 0
	for round := 0; round < 8; round++ {
		raw1, _ := insertMsg(4000, "first")
		raw2, want2 := insertMsg(4000, "second")
		if len(raw1) < memMinSize || len(raw2) > memRound(len(raw1)) {
			t.Fatalf("messages of %d and %d bytes: not one pooled class", len(raw1), len(raw2))
		}
		r := bufio.NewReader(bytes.NewReader(append(raw1, raw2...)))
		m1, err := ReadMessage(r)
		if err != nil {
			t.Fatal(err)
		}
		msg1 := m1.(*Msg)
		if !msg1.Pooled() {
			t.Fatalf("a %d-byte message is not pooled", len(raw1))
		}
		old := msg1.Sequences[0].Documents[0]
		msg1.Recycle()
		if msg1.Pooled() || msg1.Body != nil || msg1.Sequences != nil {
			t.Fatal("Recycle left the message usable")
		}
		if old[0] != 0xFF || old[len(old)-1] != 0xFF {
			t.Fatalf("the recycled memory was not poisoned: % x", old[:8])
		}
		m2, err := ReadMessage(r)
		if err != nil {
			t.Fatal(err)
		}
		got := m2.(*Msg).Sequences[0].Documents
		if len(got) != len(want2) {
			t.Fatalf("%d documents, want %d", len(got), len(want2))
		}
		for i := range want2 {
			if !bytes.Equal(got[i], want2[i]) {
				t.Fatalf("document %d: %v, want %v", i, got[i], want2[i])
			}
		}
		if &got[0][0] == &old[0] {
			reused++
		}
		m2.(*Msg).Recycle()
	}
	// sync.Pool may drop an item now and then (a collection, the race
	// detector), not every time.
	if reused == 0 {
		t.Fatal("no message reused the memory of the one recycled before it")
	}
}

// TestSmallMessageNotPooled: below the smallest class a message keeps
// its own memory, and Recycle leaves it alone.
func TestSmallMessageNotPooled(t *testing.T) {
	raw, docs := insertMsg(3, "small")
	m, err := ReadMessage(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	msg := m.(*Msg)
	if msg.Pooled() {
		t.Fatal("a small message is pooled")
	}
	msg.Recycle()
	if !bytes.Equal(msg.Sequences[0].Documents[0], docs[0]) {
		t.Fatal("Recycle changed an unpooled message")
	}
}
