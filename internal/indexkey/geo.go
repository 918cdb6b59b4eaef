package indexkey

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/catalog"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/geo"
	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query"
)

// Keys of 2dsphere indexes (index version 3), as mongod's S2 key
// generator makes them. The geo field of a document contributes one key
// per S2 cell of its geometry (geo.IndexCells: a leaf cell for a point, a
// covering between levels 2 and 16 for other shapes), each the cell id as
// a NumberLong; the other fields contribute their values as in a btree
// index (one per array element); the keys are their cartesian product.
// A document without a geometry at the geo field has no entry (2dsphere
// indexes of version 2 and later are sparse on their geo fields); a value
// that is not a valid geometry fails the write with 16755.

// generateGeo fills g's key buffers for a document of a 2dsphere index.
func (g *Generator) generateGeo(ix *catalog.Index, doc bsoncore.Document) error {
	g.ix = ix
	g.stack, g.paths = g.stack[:0], g.paths[:0]
	g.buf, g.offs, g.tbuf, g.vals = g.buf[:0], g.offs[:0], g.tbuf[:0], g.vals[:0]
	defer func() { g.ix = nil }()
	per := make([][]bsoncore.Value, len(ix.Fields))
	for i := range ix.Fields {
		f := &ix.Fields[i]
		if f.Geo == "" {
			per[i] = btreeValues(doc, f.Path)
			if len(per[i]) > 1 {
				g.addPathString(f.Path)
			}
			continue
		}
		var vals []bsoncore.Value
		var err error
		if f.Geo == "2d" {
			vals, err = hash2DKeyValues(doc, f.Path, ix.Grid2D)
		} else {
			vals, err = geoKeyValues(doc, f.Path)
		}
		if err != nil {
			return err
		}
		if len(vals) == 0 {
			return nil // no geometry: no entry
		}
		if len(vals) > 1 {
			g.addPathString(f.Path)
		}
		per[i] = vals
	}
	if n := len(ix.Fields); cap(g.fixed) < n {
		g.fixed = make([]bsoncore.Value, n)
	}
	g.fixed = g.fixed[:len(ix.Fields)]
	g.product(per, 0)
	return nil
}

func (g *Generator) addPathString(p string) {
	for _, q := range g.paths {
		if q == p {
			return
		}
	}
	g.paths = append(g.paths, p)
}

// product emits one key per combination of the fields' values.
func (g *Generator) product(per [][]bsoncore.Value, i int) {
	if i == len(per) {
		start, tstart := len(g.buf), len(g.tbuf)
		for k, f := range g.ix.Fields {
			g.buf = keystring.AppendValue(g.buf, g.fixed[k], f.Desc)
			g.tbuf = keystring.AppendTypeBits(g.tbuf, g.fixed[k])
		}
		g.tbuf = append(g.tbuf[:tstart], keystring.TrimTypeBits(g.tbuf[tstart:])...)
		g.offs = append(g.offs, start, len(g.buf), tstart, len(g.tbuf))
		if g.keepVals {
			g.vals = append(g.vals, g.fixed...)
		}
		return
	}
	for _, v := range per[i] {
		g.fixed[i] = v
		g.product(per, i+1)
	}
}

// btreeValues returns the values of a non-geo field of a 2dsphere index:
// each element of an array, undefined for an empty array, null when
// missing.
func btreeValues(doc bsoncore.Document, path string) []bsoncore.Value {
	var out []bsoncore.Value
	query.EachPathValue(doc, path, func(v bsoncore.Value) {
		if v.Type != bsoncore.TypeArray {
			out = append(out, v)
			return
		}
		vals, _ := bsoncore.Document(v.Data).Values()
		if len(vals) == 0 {
			out = append(out, undefinedValue)
		}
		out = append(out, vals...)
	})
	if len(out) == 0 {
		out = append(out, nullValue)
	}
	return out
}

// geoKeyValues returns the cell keys of the geometries at path.
func geoKeyValues(doc bsoncore.Document, path string) ([]bsoncore.Value, error) {
	var out []bsoncore.Value
	var ferr error
	seen := map[int64]bool{}
	name := path[strings.LastIndexByte(path, '.')+1:]
	add := func(v bsoncore.Value) {
		if ferr != nil {
			return
		}
		if v.Type != bsoncore.TypeArray && v.Type != bsoncore.TypeEmbeddedDocument {
			// mongod quotes the element with its name.
			ferr = errs.New(errs.Location16755, "Can't extract geo keys: %s  geo element must be an array or object: %s", bsonutil.FormatDoc(doc, bsonutil.Style{}), bsonutil.FormatElem(name, v, bsonutil.Style{}))
			return
		}
		g, err := geo.ParseStored(v)
		if err == nil && g.OffSphere {
			p := g.Flat
			err = errs.New(errs.BadValue, "longitude/latitude is out of bounds, lng: %v lat: %v", p.X, p.Y)
		}
		if err != nil {
			reason := err.Error()
			if e, ok := err.(*errs.Error); ok {
				reason = e.Msg
			}
			ferr = errs.New(errs.Location16755, "Can't extract geo keys: %s  %s", bsonutil.FormatDoc(doc, bsonutil.Style{}), reason)
			return
		}
		for _, c := range geo.IndexCells(g) {
			k := geo.KeyOf(c)
			if !seen[k] {
				seen[k] = true
				out = append(out, bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, k)})
			}
		}
	}
	query.EachPathValue(doc, path, func(v bsoncore.Value) {
		switch v.Type {
		case bsoncore.TypeNull, bsoncore.TypeUndefined:
			return
		case bsoncore.TypeArray:
			vals, _ := bsoncore.Document(v.Data).Values()
			if len(vals) > 0 && (vals[0].Type == bsoncore.TypeArray || vals[0].Type == bsoncore.TypeEmbeddedDocument) {
				for _, e := range vals {
					add(e)
				}
				return
			}
		}
		add(v)
	})
	return out, ferr
}

// hash2DKeyValues returns the geohash keys of the legacy coordinate pairs
// at path (a pair, or an array of pairs), for a 2d index over grid.
// Other values fail with 13026, points outside [min, max] with 13027
// (mongod's message, quoting the bounds and the document).
func hash2DKeyValues(doc bsoncore.Document, path string, grid *geo.Grid2D) ([]bsoncore.Value, error) {
	if grid == nil {
		grid = geo.DefaultGrid2D
	}
	var out []bsoncore.Value
	var ferr error
	add := func(v bsoncore.Value) {
		if ferr != nil {
			return
		}
		if !geo.IsLegacyPoint(v) {
			ferr = errs.New(errs.Code(13026), "geo values must be 'legacy coordinate pairs' for 2d indexes")
			return
		}
		p, err := geo.ParseFlatPoint(v, true)
		if err != nil {
			ferr = errs.New(errs.Code(13026), "geo values must be 'legacy coordinate pairs' for 2d indexes")
			return
		}
		if !grid.InRange(p) {
			ferr = errs.New(errs.Code(13027), "point not in interval of [ %s, %s ] :: caused by :: %s",
				geo.FormatNumber2D(grid.Min), geo.FormatNumber2D(grid.Max), bsonutil.FormatDoc(doc, bsonutil.Style{}))
			return
		}
		out = append(out, geo.HashValue(grid.Hash(p)))
	}
	query.EachPathValue(doc, path, func(v bsoncore.Value) {
		if v.Type == bsoncore.TypeArray {
			vals, _ := bsoncore.Document(v.Data).Values()
			if len(vals) > 0 && (vals[0].Type == bsoncore.TypeArray || vals[0].Type == bsoncore.TypeEmbeddedDocument) {
				for _, e := range vals {
					add(e)
				}
				return
			}
		}
		if v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined {
			return
		}
		add(v)
	})
	return out, ferr
}
