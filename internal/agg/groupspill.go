package agg

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
)

// groupTable holds the groups of $group (and $bucket) in memory.
type groupTable struct {
	groups map[string]*group
	order  []*group // in order of first appearance
	keys   []string // keystrings, parallel to order
	mem    int64
}

func (t *groupTable) reset() {
	t.groups = map[string]*group{}
	t.order, t.keys, t.mem = nil, nil, 0
}

// iter returns the groups' results in order of first appearance.
func (t *groupTable) iter(g *groupStage) Iterator {
	order := t.order
	i := 0
	return &funcIter{next: func() (bsoncore.Document, error) {
		if i >= len(order) {
			return nil, nil
		}
		gr := order[i]
		order[i] = nil
		i++
		return g.result(gr)
	}}
}

// spillTable writes the table as one run, encoding one group at a time in
// key order, and empties it.
func (g *groupStage) spillTable(t *groupTable, sp *spiller) error {
	idx := make([]int, len(t.order))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(t.keys[a], t.keys[b]) })
	err := sp.writeRunFunc(len(idx), func(i int) ([]byte, error) {
		j := idx[i]
		rec, err := g.partialRecord(t.keys[j], t.order[j])
		t.order[j] = nil
		return rec, err
	})
	t.reset()
	if err != nil {
		return fmt.Errorf("$group spill: %w", err)
	}
	return nil
}

// partialRecords encodes the table's groups, sorted by key.
func (g *groupStage) partialRecords(t *groupTable) ([][]byte, error) {
	recs := make([][]byte, 0, len(t.order))
	for i, gr := range t.order {
		rec, err := g.partialRecord(t.keys[i], gr)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
		t.order[i] = nil
	}
	sortRecords(recs)
	return recs, nil
}

// A spill record of $group is uvarint(len(ks)) ks {k: key, s: [partial
// state of each accumulator]}; a run holds each key once, sorted by ks.
func (g *groupStage) partialRecord(ks string, gr *group) ([]byte, error) {
	rec := binary.AppendUvarint(nil, uint64(len(ks)))
	rec = append(rec, ks...)
	idx, body := bsoncore.AppendDocumentStart(rec)
	body = bsoncore.AppendValueElement(body, "k", gr.key)
	aidx, body := bsoncore.AppendArrayElementStart(body, "s")
	for j, a := range gr.accs {
		p, err := a.Partial()
		if err != nil {
			return nil, fmt.Errorf("$group spill %s: %w", g.ops[j], err)
		}
		if p.Type == 0 {
			p = expr.Null
		}
		body = bsoncore.AppendValueElement(body, itoa(j), p)
	}
	body, _ = bsoncore.AppendArrayEnd(body, aidx)
	body, _ = bsoncore.AppendDocumentEnd(body, idx)
	return body, nil
}

// splitSpillRecord returns the key string and body of a record.
func splitSpillRecord(r []byte) (ks []byte, body bsoncore.Document) {
	n, w := binary.Uvarint(r)
	return r[w : w+int(n)], r[w+int(n):]
}

func compareSpillRecords(a, b []byte) int {
	ka, _ := splitSpillRecord(a)
	kb, _ := splitSpillRecord(b)
	return compareBytes(ka, kb)
}

func sortRecords(recs [][]byte) {
	sortSlice(recs, compareSpillRecords)
}

// nextSpilled folds the partial states of the next key from the merged
// runs. The merge is stable, so states arrive in the order they were
// written.
func (g *groupStage) nextSpilled(m *merger, vars *expr.Vars) (bsoncore.Document, error) {
	var gr *group
	var curKS []byte
	for {
		r, err := m.peek()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		ks, body := splitSpillRecord(r)
		if gr != nil && compareBytes(ks, curKS) != 0 {
			break
		}
		if err := m.pop(); err != nil {
			return nil, fmt.Errorf("$group merge: %w", err)
		}
		if gr == nil {
			curKS = ks
			if gr, _, err = g.newGroup(body.Lookup("k"), vars); err != nil {
				return nil, err
			}
		}
		vals, err := body.Lookup("s").Array().Values()
		if err != nil {
			return nil, fmt.Errorf("$group merge: bad spill record: %w", err)
		}
		for i, p := range vals {
			if err := gr.accs[i].Merge(p); err != nil {
				return nil, err
			}
		}
	}
	if gr == nil {
		return nil, nil
	}
	return g.result(gr)
}
