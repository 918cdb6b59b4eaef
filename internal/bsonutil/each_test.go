package bsonutil

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestEachElement(t *testing.T) {
	doc := bsoncore.NewDocumentBuilder().AppendInt32("a", 1).AppendString("b", "x").
		AppendDocument("c", bsoncore.NewDocumentBuilder().AppendBoolean("d", true).Build()).Build()
	var keys []string
	if err := EachElement(doc, func(el bsoncore.Element) error { keys = append(keys, el.Key()); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0] != "a" || keys[1] != "b" || keys[2] != "c" {
		t.Fatalf("keys %v", keys)
	}
	if n, err := CountElements(doc); n != 3 || err != nil {
		t.Fatalf("CountElements: %d, %v", n, err)
	}
	stop := errors.New("stop")
	n := 0
	if err := EachElement(doc, func(bsoncore.Element) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("stop: %v after %d", err, n)
	}
	if err := EachElement(bsoncore.NewDocumentBuilder().Build(), func(bsoncore.Element) error { t.Fatal("element in {}"); return nil }); err != nil {
		t.Fatal(err)
	}
	// Malformed: truncated, a wrong length, no terminator, a bad element.
	bad := [][]byte{nil, doc[:3], doc[:len(doc)-1], append(append([]byte(nil), doc[:len(doc)-1]...), 1)}
	short := append([]byte(nil), doc...)
	short[4] = 0x02 // "a" claims to be a string: its length runs past the end
	bad = append(bad, short)
	for i, b := range bad {
		if err := EachElement(b, func(bsoncore.Element) error { return nil }); err == nil {
			t.Errorf("case %d: malformed document accepted", i)
		}
		if _, err := CountElements(b); err == nil && i < 4 {
			t.Errorf("case %d: CountElements accepted a malformed frame", i)
		}
	}
}
