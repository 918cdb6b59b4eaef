package indexkey

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/catalog"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/text"
)

// Text index entries (textIndexVersion 3), as mongod stores them: one per
// distinct term of the document, (prefix values, term, score, suffix
// values), the score being the document's weighted score for the term
// (text.Spec.Score). The key pattern is {prefix..., _fts: "text", _ftsx:
// 1, suffix...} (catalog.TextIndex).

// textKeys generates the entries of a text index for doc into g: one per
// term, (prefix values, term, score, suffix values).
func (g *Generator) textKeys(ix *catalog.Index, doc bsoncore.Document) error {
	g.buf, g.offs, g.tbuf, g.paths = g.buf[:0], g.offs[:0], g.tbuf[:0], g.paths[:0]
	terms, err := ix.Text.Spec.Score(doc)
	if err != nil {
		if le, ok := err.(*text.LanguageError); ok {
			return errs.New(errs.Location17262, "language override unsupported: %s", le.Name)
		}
		return err
	}
	if len(terms) == 0 {
		return nil
	}
	n := len(ix.Fields)
	if cap(g.fixed) < n {
		g.fixed = make([]bsoncore.Value, n)
	}
	g.fixed = g.fixed[:n]
	np := ix.Text.NPrefix
	for i, f := range ix.Fields {
		if i == np || i == np+1 {
			continue
		}
		v, err := doc.LookupErr(f.Parts...)
		switch {
		case err != nil:
			v = nullValue
		case v.Type == bsoncore.TypeArray:
			where := "prefix"
			if i > np {
				where = "suffix"
			}
			return errs.New(errs.Location16675, "cannot have a multi-key as a %s to a text index", where)
		}
		g.fixed[i] = v
	}
	for _, t := range terms {
		g.fixed[np] = bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, t.Term)}
		g.fixed[np+1] = bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, t.Score)}
		start, tstart := len(g.buf), len(g.tbuf)
		for i := range ix.Fields {
			g.buf = keystring.AppendValue(g.buf, g.fixed[i], ix.Fields[i].Desc)
			g.tbuf = keystring.AppendTypeBits(g.tbuf, g.fixed[i])
		}
		g.tbuf = append(g.tbuf[:tstart], keystring.TrimTypeBits(g.tbuf[tstart:])...)
		g.offs = append(g.offs, start, len(g.buf), tstart, len(g.tbuf))
	}
	return nil
}
