package engine

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/bsonutil"
	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/keystring"
)

// keyField is one field of an index key pattern.
type keyField struct {
	path  string
	parts []string
	desc  bool
}

// parseKeyPattern validates a key pattern and splits its fields.
func parseKeyPattern(key bsoncore.Document) ([]keyField, error) {
	elems, err := key.Elements()
	if err != nil {
		return nil, errs.New(errs.FailedToParse, "invalid index key pattern: %v", err)
	}
	if len(elems) == 0 {
		return nil, errs.New(errs.CannotCreateIndex, "Index keys cannot be an empty object.")
	}
	fields := make([]keyField, 0, len(elems))
	for _, e := range elems {
		name := e.Key()
		v := e.Value()
		f := keyField{path: name, parts: strings.Split(name, ".")}
		switch {
		case bsonutil.IsNumber(v.Type):
			n := bsonutil.AsFloat64(v)
			if n == 0 {
				return nil, errs.New(errs.CannotCreateIndex, "Values in the index key pattern can't be all zero or empty: %s", name)
			}
			f.desc = n < 0
		case v.Type == bsoncore.TypeString:
			return nil, errs.New(errs.CannotCreateIndex, "Index type '%s' is not supported by Lode", v.StringValue())
		default:
			return nil, errs.New(errs.CannotCreateIndex, "Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.", typeName(v.Type))
		}
		for _, p := range f.parts {
			if p == "" {
				return nil, errs.New(errs.CannotCreateIndex, "Index keys cannot contain an empty field.")
			}
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// keyGen holds reusable scratch space for key generation. It is not safe
// for concurrent use.
type keyGen struct {
	vals   [][]bsoncore.Value
	arrs   [][]string
	buf    []byte
	offs   []int
	keys   [][]byte
	choice []int
	tbuf   []byte
	tbs    [][]byte // type bits of keys[i]
}

var (
	nullValue      = bsoncore.Value{Type: bsoncore.TypeNull}
	undefinedValue = bsoncore.Value{Type: bsoncore.TypeUndefined}
)

// indexKeys returns the distinct keystrings doc produces for ix (sorted),
// and the array paths that make them multikey. skip is true when the
// document has no entry (sparse with all fields missing, or outside the
// partial filter). The returned slices are valid until the next call on g.
func (g *keyGen) indexKeys(ix *index, doc bsoncore.Document) (keys [][]byte, arrayPaths []string, skip bool, err error) {
	if ix.partialFilter != nil && !ix.partialFilter.Match(doc) {
		return nil, nil, true, nil
	}
	n := len(ix.fields)
	if cap(g.vals) < n {
		g.vals = make([][]bsoncore.Value, n)
		g.arrs = make([][]string, n)
		g.choice = make([]int, n)
	}
	g.vals, g.arrs, g.choice = g.vals[:n], g.arrs[:n], g.choice[:n]
	allMissing := true
	for i := range ix.fields {
		f := &ix.fields[i]
		g.vals[i] = g.vals[i][:0]
		g.arrs[i] = g.arrs[i][:0]
		collectPath(doc, f.parts, 0, &g.vals[i], &g.arrs[i])
		if len(g.vals[i]) == 0 {
			g.vals[i] = append(g.vals[i], nullValue)
		} else {
			allMissing = false
		}
	}
	if ix.sparse && allMissing {
		return nil, nil, true, nil
	}
	if err := checkParallel(ix, g.arrs); err != nil {
		return nil, nil, false, err
	}
	g.buf, g.offs, g.keys = g.buf[:0], g.offs[:0], g.keys[:0]
	g.tbuf, g.tbs = g.tbuf[:0], g.tbs[:0]
	for i := range g.choice {
		g.choice[i] = 0
	}
	for {
		start, tstart := len(g.buf), len(g.tbuf)
		for i := range ix.fields {
			v := g.vals[i][g.choice[i]]
			g.buf = keystring.AppendValue(g.buf, v, ix.fields[i].desc)
			g.tbuf = keystring.AppendTypeBits(g.tbuf, v)
		}
		g.tbuf = append(g.tbuf[:tstart], keystring.TrimTypeBits(g.tbuf[tstart:])...)
		g.offs = append(g.offs, start, len(g.buf), tstart, len(g.tbuf))
		// advance the odometer
		i := n - 1
		for ; i >= 0; i-- {
			g.choice[i]++
			if g.choice[i] < len(g.vals[i]) {
				break
			}
			g.choice[i] = 0
		}
		if i < 0 {
			break
		}
	}
	for i := 0; i < len(g.offs); i += 4 {
		g.keys = append(g.keys, g.buf[g.offs[i]:g.offs[i+1]:g.offs[i+1]])
		g.tbs = append(g.tbs, g.tbuf[g.offs[i+2]:g.offs[i+3]:g.offs[i+3]])
	}
	if len(g.keys) > 1 {
		sort.Stable(keySorter{g})
		w := 1
		for r := 1; r < len(g.keys); r++ {
			if !bytes.Equal(g.keys[r], g.keys[w-1]) {
				g.keys[w], g.tbs[w] = g.keys[r], g.tbs[r]
				w++
			}
		}
		g.keys, g.tbs = g.keys[:w], g.tbs[:w]
	}
	for i := range g.arrs {
		arrayPaths = append(arrayPaths, g.arrs[i]...)
	}
	return g.keys, arrayPaths, false, nil
}

// keySorter sorts a keyGen's keys with their type bits.
type keySorter struct{ g *keyGen }

func (s keySorter) Len() int           { return len(s.g.keys) }
func (s keySorter) Less(i, j int) bool { return bytes.Compare(s.g.keys[i], s.g.keys[j]) < 0 }
func (s keySorter) Swap(i, j int) {
	s.g.keys[i], s.g.keys[j] = s.g.keys[j], s.g.keys[i]
	s.g.tbs[i], s.g.tbs[j] = s.g.tbs[j], s.g.tbs[i]
}

// keyValues returns the field values of doc that produce keystring ks for
// ix, as a document {field: value, ...} for duplicate key errors.
func keyValues(ix *index, doc bsoncore.Document, ks []byte) bsoncore.Document {
	var g keyGen
	n := len(ix.fields)
	g.vals = make([][]bsoncore.Value, n)
	g.arrs = make([][]string, n)
	for i := range ix.fields {
		collectPath(doc, ix.fields[i].parts, 0, &g.vals[i], &g.arrs[i])
		if len(g.vals[i]) == 0 {
			g.vals[i] = append(g.vals[i], nullValue)
		}
	}
	choice := make([]int, n)
	for {
		var buf []byte
		for i := range ix.fields {
			buf = keystring.AppendValue(buf, g.vals[i][choice[i]], ix.fields[i].desc)
		}
		if bytes.Equal(buf, ks) {
			break
		}
		i := n - 1
		for ; i >= 0; i-- {
			choice[i]++
			if choice[i] < len(g.vals[i]) {
				break
			}
			choice[i] = 0
		}
		if i < 0 {
			break // not found: report the first combination
		}
	}
	b := bsoncore.NewDocumentBuilder()
	for i, f := range ix.fields {
		b.AppendValue(f.path, g.vals[i][choice[i]])
	}
	return b.Build()
}

// collectPath appends the values found at parts[i:] below doc to out, and
// the paths of the arrays it traversed to arrs.
func collectPath(doc bsoncore.Document, parts []string, i int, out *[]bsoncore.Value, arrs *[]string) {
	v, err := doc.LookupErr(parts[i])
	if err != nil {
		return
	}
	walkValue(v, parts, i+1, out, arrs)
}

func walkValue(v bsoncore.Value, parts []string, i int, out *[]bsoncore.Value, arrs *[]string) {
	if i == len(parts) {
		if v.Type != bsoncore.TypeArray {
			*out = append(*out, v)
			return
		}
		addArrayPath(arrs, parts[:i])
		vals, _ := v.Array().Values()
		if len(vals) == 0 {
			*out = append(*out, undefinedValue)
			return
		}
		*out = append(*out, vals...)
		return
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		collectPath(v.Document(), parts, i, out, arrs)
	case bsoncore.TypeArray:
		addArrayPath(arrs, parts[:i])
		arr := v.Array()
		if n, err := strconv.Atoi(parts[i]); err == nil && n >= 0 {
			if e, err := arr.IndexErr(uint(n)); err == nil {
				walkValue(e, parts, i+1, out, arrs)
			}
			return
		}
		vals, _ := arr.Values()
		for _, e := range vals {
			if e.Type == bsoncore.TypeEmbeddedDocument {
				collectPath(e.Document(), parts, i, out, arrs)
			}
		}
	}
}

func addArrayPath(arrs *[]string, parts []string) {
	p := strings.Join(parts, ".")
	for _, a := range *arrs {
		if a == p {
			return
		}
	}
	*arrs = append(*arrs, p)
}

// checkParallel rejects documents where two fields of a compound index
// traverse different arrays (MongoDB's "cannot index parallel arrays").
// Fields that traverse the same array, such as "metadata.key" and
// "metadata.value", are allowed and produce the cross product.
func checkParallel(ix *index, arrs [][]string) error {
	if len(arrs) < 2 {
		return nil
	}
	for i := range arrs {
		if len(arrs[i]) == 0 {
			continue
		}
		for j := i + 1; j < len(arrs); j++ {
			if len(arrs[j]) == 0 {
				continue
			}
			if !subset(arrs[i], arrs[j]) && !subset(arrs[j], arrs[i]) {
				return errs.New(errs.CannotIndexParallelArrays, "cannot index parallel arrays [%s] [%s]",
					lastPart(ix.fields[j].path), lastPart(ix.fields[i].path))
			}
		}
	}
	return nil
}

func lastPart(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func subset(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
