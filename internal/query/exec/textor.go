package exec

import (
	"fmt"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// TextOr is TEXT_OR: it reads every entry of its term scans, adding up
// each record's scores (a document matching two terms scores both), then
// fetches each record once, applies the filter (the predicates beside
// $text) and returns the documents with their score, in record order.
type TextOr struct {
	base
	tp     *plan.TextPlan
	dirs   []bool
	filter *query.Filter
	reader *Fetch // reads the documents (its iterator, not its stage)
	cur    int
	scores map[uint64]float64
	rids   []uint64
	next   int
	read   bool
	m      Member

	docsExamined int64
	// skip[i] is the length of the key bytes before the score in the
	// entries of child i.
	skip []int
	// filterDoc is the filter without $text, as explain shows it.
	filterDoc bsoncore.Document
}

// filterShown is the filter explain prints: the predicates beside $text.
func (t *TextOr) filterShown() bsoncore.Document { return t.filterDoc }

// withoutText removes the $text clause from a filter document (top level
// or inside a top-level $and), nil when nothing else remains.
func withoutText(d bsoncore.Document) bsoncore.Document {
	if len(d) <= 5 {
		return nil
	}
	elems, _ := d.Elements()
	b := bsoncore.NewDocumentBuilder()
	n := 0
	for _, e := range elems {
		switch e.Key() {
		case "$text":
			continue
		case "$and":
			vals, _ := e.Value().Array().Values()
			var kept []bsoncore.Value
			for _, v := range vals {
				if doc, ok := v.DocumentOK(); ok {
					if _, err := doc.LookupErr("$text"); err == nil {
						continue
					}
				}
				kept = append(kept, v)
			}
			if len(kept) == 1 {
				if doc, ok := kept[0].DocumentOK(); ok {
					inner, _ := doc.Elements()
					for _, ie := range inner {
						b.AppendValue(ie.Key(), ie.Value())
						n++
					}
					continue
				}
			}
			if len(kept) > 0 {
				ab := bsoncore.NewArrayBuilder()
				for _, v := range kept {
					ab.AppendValue(v)
				}
				b.AppendArray("$and", ab.Build())
				n++
			}
			continue
		}
		b.AppendValue(e.Key(), e.Value())
		n++
	}
	if n == 0 {
		return nil
	}
	return b.Build()
}

// NewTextOr returns a TEXT_OR over the term scans.
func NewTextOr(children []Stage, tp *plan.TextPlan, r storage.Reader, collID uint64, filter *query.Filter, filterDoc bsoncore.Document, timing bool) *TextOr {
	t := &TextOr{tp: tp, dirs: tp.Index.Directions(), filter: filter, scores: map[uint64]float64{},
		reader: NewFetch(nil, r, collID, nil, nil, false)}
	t.reader.children = nil
	t.filterDoc = withoutText(filterDoc)
	// Every entry of the scan of term i starts with the same bytes (the
	// prefix values and the term): the score is decoded right after them.
	np := tp.Index.Text.NPrefix
	for _, term := range tp.Query.BoundsTerms {
		var b []byte
		for j, v := range tp.Prefix {
			b = keystring.AppendValue(b, v, t.dirs[j])
		}
		b = keystring.AppendValue(b, bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, term)}, t.dirs[np])
		t.skip = append(t.skip, len(b))
	}
	t.children = children
	t.timing = timing
	return t
}

// Name implements Stage.
func (t *TextOr) Name() string { return plan.StageTextOr }

// Work implements Stage.
func (t *TextOr) Work() (State, *Member, error) {
	start := t.now()
	st, m, err := t.work()
	if err != nil {
		st, m = EOF, nil
	}
	t.record(st, start)
	return st, m, err
}

func (t *TextOr) work() (State, *Member, error) {
	if !t.read {
		if t.cur >= len(t.children) {
			t.read = true
			sort.Slice(t.rids, func(i, j int) bool { return t.rids[i] < t.rids[j] })
			return NeedTime, nil, nil
		}
		st, m, err := t.children[t.cur].Work()
		if err != nil {
			return EOF, nil, err
		}
		switch st {
		case EOF:
			t.cur++
		case Advanced:
			score, err := t.score(m.Key)
			if err != nil {
				return EOF, nil, err
			}
			if _, ok := t.scores[m.RID]; !ok {
				t.rids = append(t.rids, m.RID)
			}
			t.scores[m.RID] += score
		}
		return NeedTime, nil, nil
	}
	if t.next >= len(t.rids) {
		return EOF, nil, nil
	}
	rid := t.rids[t.next]
	t.next++
	doc, found, err := t.reader.get(rid)
	if err != nil {
		return EOF, nil, err
	}
	if !found {
		return NeedTime, nil, nil
	}
	t.docsExamined++
	d := doc
	if t.filter != nil {
		ok, _, err := t.filter.MatchChecked(d)
		if err != nil {
			return EOF, nil, err
		}
		if !ok {
			return NeedTime, nil, nil
		}
	}
	t.m = Member{RID: rid, Doc: d, Pos: -1, Score: t.scores[rid]}
	return Advanced, &t.m, nil
}

// score decodes the score of an entry of the current child's scan.
func (t *TextOr) score(key []byte) (float64, error) {
	off := t.skip[t.cur]
	if off > len(key) {
		return 0, fmt.Errorf("text index entry: key shorter than its term")
	}
	// The score is a double; without its type bits an integral one
	// decodes as an integer of the same value.
	vals, _, err := keystring.DecodePrefix(key[off:], t.dirs[t.tp.Index.Text.NPrefix+1:t.tp.Index.Text.NPrefix+2], nil)
	if err != nil {
		return 0, fmt.Errorf("text index entry: %w", err)
	}
	f, ok := vals[0].AsFloat64OK()
	if !ok {
		if i, ok := vals[0].AsInt64OK(); ok {
			f = float64(i)
		}
	}
	return f, nil
}

// Close implements Stage.
func (t *TextOr) Close() {
	t.reader.Close()
	t.closeChildren()
}

func (t *TextOr) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if execStats {
		b.AppendInt64("docsExamined", t.docsExamined)
	}
}

// TextMatch is TEXT_MATCH: it drops the documents that fail the text
// query's phrases, negated terms and phrases (and, when case or
// diacritic sensitive, that lack a positive term as asked).
type TextMatch struct {
	base
	tp       *plan.TextPlan
	rejected int64
}

// NewTextMatch returns a TEXT_MATCH over child.
func NewTextMatch(child Stage, tp *plan.TextPlan, timing bool) *TextMatch {
	t := &TextMatch{tp: tp}
	t.children = []Stage{child}
	t.timing = timing
	return t
}

// Name implements Stage.
func (t *TextMatch) Name() string { return plan.StageTextMatch }

// Work implements Stage.
func (t *TextMatch) Work() (State, *Member, error) {
	start := t.now()
	st, m, err := t.children[0].Work()
	if err == nil && st == Advanced && !t.tp.Query.Matches(t.tp.Index.Text.Spec, m.Doc) {
		t.rejected++
		st, m = NeedTime, nil
	}
	if err != nil {
		st, m = EOF, nil
	}
	t.record(st, start)
	return st, m, err
}

// Close implements Stage.
func (t *TextMatch) Close() { t.closeChildren() }

func (t *TextMatch) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	q := t.tp.Query
	pq := bsoncore.NewDocumentBuilder()
	for _, f := range []struct {
		name string
		list []string
	}{{"terms", q.Terms}, {"negatedTerms", q.NegatedTerms}, {"phrases", q.Phrases}, {"negatedPhrases", q.NegatedPhrases}} {
		idx, a := bsoncore.AppendArrayStart(nil)
		for i, s := range f.list {
			a = bsoncore.AppendStringElement(a, fmt.Sprint(i), s)
		}
		a, _ = bsoncore.AppendArrayEnd(a, idx)
		pq.AppendArray(f.name, a)
	}
	b.AppendDocument("indexPrefix", t.tp.PrefixDoc()).AppendString("indexName", t.tp.Index.Name).
		AppendDocument("parsedTextQuery", pq.Build()).
		AppendInt32("textIndexVersion", t.tp.Index.Text.Version)
	if execStats {
		b.AppendInt64("docsRejected", t.rejected)
	}
}
