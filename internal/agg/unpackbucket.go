package agg

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsoncolumn"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// This file is $_internalUnpackBucket, the stage that turns the bucket
// documents of a time series collection's system.buckets.<name> into the
// measurements they hold, as mongod 7.0's (and its alias $_unpackBucket,
// which takes only timeField, metaField and assumeNoMixedSchemaData). A
// time series namespace is a view whose pipeline is this stage; the
// rewrites that move work before it, onto the buckets, are
// unpackbucket_rewrite.go's.
//
// A version-1 bucket is
//
//	{_id, control: {version: 1, min: {...}, max: {...}}, meta: <meta>,
//	 data: {<field>: {"0": v, "1": v, ...}, ...}}
//
// where the time field's column has an entry for every measurement and
// the other columns only for the measurements that have the field. The
// measurement at index i is, in this order, the time field, the meta
// field (the bucket's meta, when it has one), then the data columns in
// the order of data that hold an entry "i", then the
// computedMetaProjFields read from the bucket's top level. Each
// measurement is built in one buffer straight from the bucket's bytes.
//
// A version-2 bucket holds each column as BinData subtype 7 (BSONColumn),
// read with internal/bsoncolumn's iterators, reused from bucket to bucket.

// The registry entries of the stages in this file (stagedef.go).
func init() {
	w := anywhere
	w.inFacet = no
	registerStage("$_internalUnpackBucket", stageDef{parse: parseUnpackBucket, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeVerbatim})
	registerStage("$_unpackBucket", stageDef{parse: parseUnpackBucketExternal, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeVerbatim})
}

// The bucket document's fields.
const (
	bucketControl = "control"
	bucketMeta    = "meta"
	bucketData    = "data"
)

// unpackSpec is the specification of $_internalUnpackBucket.
type unpackSpec struct {
	timeField string
	metaField string
	hasMeta   bool
	// include: the fields are those unpacked (else those left out).
	include bool
	fields  []string
	// maxSpan is bucketMaxSpanSeconds.
	maxSpan           int32
	assumeNoMixed     bool
	usesExtendedRange bool
	// computedMeta are fields an $addFields before the stage computed
	// at the bucket's top level from its meta; each measurement gets
	// them.
	computedMeta []string
	// eventFilter is applied to each measurement, except those of a
	// bucket that wholeBucketFilter matches (each nil when absent).
	eventFilter, wholeBucketFilter bsoncore.Document
}

// unpackStage is $_internalUnpackBucket.
type unpackStage struct {
	us          unpackSpec
	includeTime bool
	includeMeta bool
	event       *query.Filter
	whole       *query.Filter
	// bound, when set, receives each bucket's control.min and
	// control.max of the time field for the $_internalBoundedSort after
	// the stage (unpackbucket_sort.go).
	bound *bucketBound
}

func parseUnpackBucket(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	spec, err := parseUnpackSpec(v)
	if err != nil {
		return nil, err
	}
	s, err := newUnpackStage(spec, pc)
	if err != nil {
		return nil, err
	}
	return []stage{s}, nil
}

// parseUnpackSpec reads the stage's argument with mongod's checks, in the
// order of its fields.
func parseUnpackSpec(v bsoncore.Value) (unpackSpec, error) {
	var spec unpackSpec
	d, ok := v.DocumentOK()
	if !ok {
		return spec, errs.New(errs.Location5346500, "$_internalUnpackBucket specification must be an object, got: %s", bsonutil.TypeName(v.Type))
	}
	elems, err := d.Elements()
	if err != nil {
		return spec, errs.New(errs.InvalidBSON, "invalid $_internalUnpackBucket: %v", err)
	}
	hasIncludeExclude, hasTime, hasSpan := false, false, false
	for _, el := range elems {
		k, ev := el.Key(), el.Value()
		switch k {
		case "include", "exclude":
			if hasIncludeExclude {
				return spec, errs.New(errs.Location5408000, "The $_internalUnpackBucket stage expects at most one of include/exclude parameters to be specified")
			}
			arr, ok := ev.ArrayOK()
			if !ok {
				return spec, errs.New(errs.Location5346501, "include or exclude field must be an array, got: %s", bsonutil.TypeName(ev.Type))
			}
			vals, _ := arr.Values()
			spec.fields = spec.fields[:0]
			for _, f := range vals {
				s, ok := f.StringValueOK()
				if !ok {
					return spec, errs.New(errs.Location5346502, "include or exclude field element must be a string, got: %s", bsonutil.TypeName(f.Type))
				}
				if strings.Contains(s, ".") {
					return spec, errs.New(errs.Location5346503, "include or exclude field element must be a single-element field path")
				}
				if !slices.Contains(spec.fields, s) {
					spec.fields = append(spec.fields, s)
				}
			}
			spec.include = k == "include"
			hasIncludeExclude = true
		case "assumeNoMixedSchemaData", "timeField", "metaField":
			if err := spec.parseSharedField(k, ev, internalUnpackCodes); err != nil {
				return spec, err
			}
			hasTime = hasTime || k == "timeField"
		case "bucketMaxSpanSeconds":
			n, ok := ev.Int32OK()
			if !ok {
				return spec, errs.New(errs.Location5510600, "bucketMaxSpanSeconds field must be an integer, got: %s", bsonutil.TypeName(ev.Type))
			}
			if n <= 0 {
				return spec, errs.New(errs.Location5510601, "bucketMaxSpanSeconds field must be greater than zero")
			}
			spec.maxSpan, hasSpan = n, true
		case "computedMetaProjFields":
			arr, ok := ev.ArrayOK()
			if !ok {
				return spec, errs.New(errs.Location5509900, "computedMetaProjFields field must be an array, got: %s", bsonutil.TypeName(ev.Type))
			}
			vals, _ := arr.Values()
			for _, f := range vals {
				s, ok := f.StringValueOK()
				if !ok {
					return spec, errs.New(errs.Location5509901, "computedMetaProjFields field element must be a string, got: %s", bsonutil.TypeName(f.Type))
				}
				if strings.Contains(s, ".") {
					return spec, errs.New(errs.Location5509902, "computedMetaProjFields field element must be a single-element field path")
				}
				spec.computedMeta = append(spec.computedMeta, s)
			}
		case "includeMinTimeAsMetadata", "includeMaxTimeAsMetadata":
			code := errs.Location6460208
			if k == "includeMaxTimeAsMetadata" {
				code = errs.Location6460209
			}
			b, ok := ev.BooleanOK()
			if !ok {
				return spec, errs.New(code, "%s field must be a bool, got: %s", k, bsonutil.TypeName(ev.Type))
			}
			if b {
				return spec, errs.New(errs.NotImplemented, "$_internalUnpackBucket's %s is not implemented: Lode has no {$meta: \"timeseriesBucketM%sTime\"}", k, k[7:10])
			}
		case "usesExtendedRange":
			b, ok := ev.BooleanOK()
			if !ok {
				return spec, errs.New(errs.Location6646901, "usesExtendedRange field must be a bool, got: %s", bsonutil.TypeName(ev.Type))
			}
			spec.usesExtendedRange = b
		case "eventFilter", "wholeBucketFilter":
			f, ok := ev.DocumentOK()
			if !ok {
				code := errs.Location7026902
				if k == "wholeBucketFilter" {
					code = errs.Location7026903
				}
				return spec, errs.New(code, "%s field must be an object, got: %s", k, bsonutil.TypeName(ev.Type))
			}
			if k == "eventFilter" {
				spec.eventFilter = f
			} else {
				spec.wholeBucketFilter = f
			}
		default:
			return spec, errs.New(errs.Location5346506, "unrecognized parameter to $_internalUnpackBucket: %s", k)
		}
	}
	if !hasTime {
		return spec, errs.New(errs.Location5346508, "The $_internalUnpackBucket stage requires a timeField parameter")
	}
	if !hasSpan {
		return spec, errs.New(errs.Location5510602, "The $_internalUnpackBucket stage requires a bucketMaxSpanSeconds parameter")
	}
	return spec, nil
}

// unpackFieldCodes are the error codes of the fields both unpack stages
// take, which mongod numbers apart for each stage.
type unpackFieldCodes struct {
	timeType, metaType, metaPath, assumeType errs.Code
}

var (
	internalUnpackCodes = unpackFieldCodes{errs.Location5346504, errs.Location5346505, errs.Location5545700, errs.Location6067202}
	externalUnpackCodes = unpackFieldCodes{errs.Location5612401, errs.Location5612402, errs.Location5612403, errs.Location6067203}
)

// parseSharedField reads timeField, metaField or
// assumeNoMixedSchemaData (k) into spec with mongod's checks, failing
// with the stage's codes.
func (spec *unpackSpec) parseSharedField(k string, ev bsoncore.Value, c unpackFieldCodes) error {
	switch k {
	case "timeField":
		s, ok := ev.StringValueOK()
		if !ok {
			return errs.New(c.timeType, "timeField field must be a string, got: %s", bsonutil.TypeName(ev.Type))
		}
		spec.timeField = s
	case "metaField":
		s, ok := ev.StringValueOK()
		if !ok {
			return errs.New(c.metaType, "metaField field must be a string, got: %s", bsonutil.TypeName(ev.Type))
		}
		if strings.Contains(s, ".") {
			return errs.New(c.metaPath, "metaField field must be a single-element field path")
		}
		spec.metaField, spec.hasMeta = s, true
	case "assumeNoMixedSchemaData":
		b, ok := ev.BooleanOK()
		if !ok {
			return errs.New(c.assumeType, "assumeClean field must be a bool, got: %s", bsonutil.TypeName(ev.Type))
		}
		spec.assumeNoMixed = b
	}
	return nil
}

// parseUnpackBucketExternal is $_unpackBucket: timeField, metaField and
// assumeNoMixedSchemaData only, the span of the "seconds" granularity.
func parseUnpackBucketExternal(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location5612400, "$_unpackBucket specification must be an object, got: %s", bsonutil.TypeName(v.Type))
	}
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid $_unpackBucket: %v", err)
	}
	spec := unpackSpec{maxSpan: 3600}
	hasTime := false
	for _, el := range elems {
		k, ev := el.Key(), el.Value()
		switch k {
		case "timeField", "metaField", "assumeNoMixedSchemaData":
			if err := spec.parseSharedField(k, ev, externalUnpackCodes); err != nil {
				return nil, err
			}
			hasTime = hasTime || k == "timeField"
		default:
			return nil, errs.New(errs.Location5612404, "unrecognized parameter to $_unpackBucket: %s", k)
		}
	}
	if !hasTime {
		return nil, errs.New(errs.Location5612405, "The $_unpackBucket stage requires a timeField parameter")
	}
	s, err := newUnpackStage(spec, pc)
	if err != nil {
		return nil, err
	}
	return []stage{s}, nil
}

// newUnpackStage builds the stage of a checked specification.
func newUnpackStage(spec unpackSpec, pc *ParseContext) (*unpackStage, error) {
	s := &unpackStage{us: spec}
	s.includeTime = spec.includes(spec.timeField)
	s.includeMeta = spec.hasMeta && spec.includes(spec.metaField) && !slices.Contains(spec.computedMeta, spec.metaField)
	var err error
	if spec.eventFilter != nil {
		if s.event, err = query.ParseCollated(spec.eventFilter, nil, nil, pc.Collator); err != nil {
			return nil, err
		}
	}
	if spec.wholeBucketFilter != nil {
		if s.whole, err = query.ParseCollated(spec.wholeBucketFilter, nil, nil, pc.Collator); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// includes reports whether a top-level field of the measurements is
// unpacked.
func (spec *unpackSpec) includes(f string) bool {
	return slices.Contains(spec.fields, f) == spec.include
}

func (s *unpackStage) name() string { return "$_internalUnpackBucket" }

// spec renders the stage as mongod serializes it, with its filters as
// parsed.
func (s *unpackStage) spec() bsoncore.Document {
	var event, whole bsoncore.Document
	if s.event != nil {
		event = s.event.Serialize()
	}
	if s.whole != nil {
		whole = s.whole.Serialize()
	}
	return specDoc("$_internalUnpackBucket", docValue(s.us.document(event, whole)))
}

// document renders the specification as mongod serializes it: include or
// exclude (sorted, the meta field last), timeField, metaField,
// bucketMaxSpanSeconds, then the flags that are set and the filters.
func (sp *unpackSpec) document(event, whole bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	fields := slices.Clone(sp.fields)
	slices.Sort(fields)
	hadMeta := false
	if sp.hasMeta {
		if i := slices.Index(fields, sp.metaField); i >= 0 {
			fields = slices.Delete(fields, i, i+1)
			hadMeta = !slices.Contains(sp.computedMeta, sp.metaField)
		}
	}
	ab := bsoncore.NewArrayBuilder()
	for _, f := range fields {
		ab.AppendString(f)
	}
	if hadMeta {
		ab.AppendString(sp.metaField)
	}
	key := "exclude"
	if sp.include {
		key = "include"
	}
	b.AppendArray(key, ab.Build())
	b.AppendString("timeField", sp.timeField)
	if sp.hasMeta {
		b.AppendString("metaField", sp.metaField)
	}
	b.AppendInt32("bucketMaxSpanSeconds", sp.maxSpan)
	if sp.assumeNoMixed {
		b.AppendBoolean("assumeNoMixedSchemaData", true)
	}
	if sp.usesExtendedRange {
		b.AppendBoolean("usesExtendedRange", true)
	}
	if len(sp.computedMeta) > 0 {
		cb := bsoncore.NewArrayBuilder()
		for _, f := range sp.computedMeta {
			cb.AppendString(f)
		}
		b.AppendArray("computedMetaProjFields", cb.Build())
	}
	if whole != nil {
		b.AppendDocument("wholeBucketFilter", whole)
	}
	if event != nil {
		b.AppendDocument("eventFilter", event)
	}
	return b.Build()
}

func (s *unpackStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	return &unpackIter{st: s, in: in}, nil
}

// column is one data field of the bucket being unpacked.
type column struct {
	name []byte
	// rest are the column's entries not read yet (version 1).
	rest []byte
	// it reads a version-2 column.
	it *bsoncolumn.Iterator
}

// columnIter returns an iterator over compressed column bin, reusing one
// of an earlier bucket's (its scratch buffers with it).
func (u *unpackIter) columnIter(bin []byte) *bsoncolumn.Iterator {
	if u.nIters == len(u.iters) {
		u.iters = append(u.iters, new(bsoncolumn.Iterator))
	}
	it := u.iters[u.nIters]
	u.nIters++
	it.Reset(bin)
	return it
}

// unpackIter unpacks the buckets of in.
type unpackIter struct {
	// reuse: each measurement returned is valid only until the next Next
	// (a parallel $group's part, whose worker keeps nothing of its
	// input); otherwise each is a copy the next stages may keep.
	reuse bool
	// iters are the column iterators of version-2 buckets, reused from
	// bucket to bucket; nIters are in use by the current one.
	iters  []*bsoncolumn.Iterator
	nIters int
	st     *unpackStage
	in     Iterator
	// bucket is the bucket being unpacked (valid until in.Next).
	bucket bsoncore.Document
	active bool
	v2     bool
	// meta is the bucket's meta value (Type 0: none).
	meta bsoncore.Value
	// time is the time column; cols the other unpacked columns.
	time column
	cols []column
	// computed are the values of computedMetaProjFields.
	computed []bsoncore.Value
	// skipEvent: the bucket matched wholeBucketFilter, so its every
	// measurement matches eventFilter.
	skipEvent bool
	buf       []byte
}

func (u *unpackIter) Close() error { return u.in.Close() }

func (u *unpackIter) Next() (bsoncore.Document, error) {
	for {
		if !u.active {
			b, err := u.in.Next()
			if err != nil || b == nil {
				return nil, err
			}
			if err := u.reset(b); err != nil {
				return nil, err
			}
		}
		doc, ok, err := u.measurement()
		if err != nil {
			return nil, err
		}
		if !ok {
			u.active = false
			continue
		}
		if u.st.event != nil && !u.skipEvent {
			m, _, err := u.st.event.MatchChecked(doc)
			if err != nil {
				return nil, err
			}
			if !m {
				continue
			}
		}
		if u.reuse {
			return doc, nil
		}
		out := make([]byte, len(doc))
		copy(out, doc)
		return out, nil
	}
}

// reset starts unpacking bucket b.
func (u *unpackIter) reset(b bsoncore.Document) error {
	spec := &u.st.us
	u.bucket, u.active, u.v2, u.skipEvent = b, true, false, false
	if u.st.bound != nil {
		*u.st.bound = bucketBound{}
	}
	u.meta = bsoncore.Value{}
	u.time = column{}
	u.cols = u.cols[:0]
	u.nIters = 0
	u.computed = u.computed[:0]
	if len(b) <= 5 {
		return errs.New(errs.Location5346510, "An empty bucket cannot be unpacked")
	}
	var data bsoncore.Value
	hasMeta := false
	version := int32(1)
	rest := b[4 : len(b)-1]
	for len(rest) > 0 {
		t, key, val, r, ok := readElem(rest)
		if !ok {
			return errs.New(errs.InvalidBSON, "invalid bucket document")
		}
		rest = r
		switch string(key) {
		case bucketData:
			data = bsoncore.Value{Type: t, Data: val}
		case bucketMeta:
			u.meta, hasMeta = bsoncore.Value{Type: t, Data: val}, true
		case bucketControl:
			if t == bsoncore.TypeEmbeddedDocument {
				ctl := bsoncore.Document(val)
				if v, err := ctl.LookupErr("version"); err == nil {
					if bsonutil.IsNumber(v.Type) {
						version = int32(bsonutil.AsInt64(v))
					}
				}
				if u.st.bound != nil {
					lo, err1 := ctl.LookupErr("min", spec.timeField)
					hi, err2 := ctl.LookupErr("max", spec.timeField)
					ok := err1 == nil && err2 == nil && lo.Type == bsoncore.TypeDateTime && hi.Type == bsoncore.TypeDateTime
					*u.st.bound = bucketBound{ok: ok}
					if ok {
						u.st.bound.min, u.st.bound.max = lo.DateTime(), hi.DateTime()
					}
				}
			}
		}
	}
	if hasMeta && !spec.hasMeta {
		return errs.New(errs.Location5369601, "The $_internalUnpackBucket stage expects buckets to have missing metadata regions if the metaField parameter is not provided")
	}
	if hasMeta && u.meta.Type == bsoncore.TypeUndefined {
		return errs.New(errs.Location5369600, "The $_internalUnpackBucket stage allows metadata to be absent or otherwise, it must not be the deprecated undefined bson type")
	}
	if !u.st.includeMeta {
		u.meta = bsoncore.Value{}
	}
	dd, ok := data.DocumentOK()
	if !ok {
		return errs.New(errs.Location10065, "invalid parameter: expected an object (data)")
	}
	if len(dd) <= 5 {
		return errs.New(errs.Location5346509, "A bucket with _id %s contains an empty data region", bucketID(b))
	}
	u.v2 = version >= 2
	hasTime := false
	rest = dd[4 : len(dd)-1]
	for len(rest) > 0 {
		t, key, val, r, ok := readElem(rest)
		if !ok {
			return errs.New(errs.InvalidBSON, "invalid bucket data")
		}
		rest = r
		isTime := string(key) == spec.timeField
		if !isTime && !spec.includes(string(key)) {
			continue
		}
		c := column{name: key}
		if u.v2 {
			if t != bsoncore.TypeBinary {
				return errs.New(errs.Location10065, "invalid parameter: expected binData (data.%s)", key)
			}
			st, bin, _, ok := bsoncore.ReadBinary(val)
			if !ok || st != 7 {
				return errs.New(errs.InvalidBSON, "data.%s of a compressed bucket is not a BSONColumn", key)
			}
			c.it = u.columnIter(bin)
		} else {
			if t != bsoncore.TypeEmbeddedDocument {
				return errs.New(errs.Location10065, "invalid parameter: expected an object (data.%s)", key)
			}
			c.rest = val[4 : len(val)-1]
		}
		if isTime {
			u.time, hasTime = c, true
		} else {
			u.cols = append(u.cols, c)
		}
	}
	if !hasTime {
		return errs.New(errs.Location5346700, "The $_internalUnpackBucket stage requires the data region to have a timeField object")
	}
	for _, f := range spec.computedMeta {
		v, _ := b.LookupErr(f)
		u.computed = append(u.computed, v)
	}
	if u.st.whole != nil {
		m, _, err := u.st.whole.MatchChecked(b)
		if err != nil {
			return err
		}
		u.skipEvent = m
	}
	return nil
}

// measurement builds the next measurement of the bucket in u.buf; ok is
// false when the bucket has no more.
func (u *unpackIter) measurement() (bsoncore.Document, bool, error) {
	if u.v2 {
		return u.measurementV2()
	}
	if len(u.time.rest) == 0 {
		return nil, false, nil
	}
	spec := &u.st.us
	t, idx, val, r, ok := readElem(u.time.rest)
	if !ok {
		return nil, false, errs.New(errs.InvalidBSON, "invalid bucket data.%s", spec.timeField)
	}
	u.time.rest = r
	buf := append(u.buf[:0], 0, 0, 0, 0)
	if u.st.includeTime {
		buf = appendElem(buf, t, spec.timeField, val)
	}
	if u.meta.Type != 0 {
		buf = appendElem(buf, u.meta.Type, spec.metaField, u.meta.Data)
	}
	for i := range u.cols {
		c := &u.cols[i]
		if len(c.rest) == 0 {
			continue
		}
		ct, key, cval, r, ok := readElem(c.rest)
		if !ok {
			return nil, false, errs.New(errs.InvalidBSON, "invalid bucket data.%s", c.name)
		}
		if !bytes.Equal(key, idx) {
			continue
		}
		c.rest = r
		buf = append(buf, byte(ct))
		buf = append(buf, c.name...)
		buf = append(buf, 0)
		buf = append(buf, cval...)
	}
	buf = u.appendComputed(buf)
	return u.finish(buf), true, nil
}

// measurementV2 is measurement for a compressed bucket.
func (u *unpackIter) measurementV2() (bsoncore.Document, bool, error) {
	spec := &u.st.us
	tv, ok := u.time.it.Next()
	if !ok {
		return nil, false, u.time.it.Err()
	}
	buf := append(u.buf[:0], 0, 0, 0, 0)
	if u.st.includeTime && tv.Type != 0 {
		buf = appendElem(buf, tv.Type, spec.timeField, tv.Data)
	}
	if u.meta.Type != 0 {
		buf = appendElem(buf, u.meta.Type, spec.metaField, u.meta.Data)
	}
	for i := range u.cols {
		c := &u.cols[i]
		v, ok := c.it.Next()
		if !ok {
			if err := c.it.Err(); err != nil {
				return nil, false, err
			}
			continue
		}
		if v.Type == 0 {
			continue
		}
		buf = append(buf, byte(v.Type))
		buf = append(buf, c.name...)
		buf = append(buf, 0)
		buf = append(buf, v.Data...)
	}
	buf = u.appendComputed(buf)
	return u.finish(buf), true, nil
}

func (u *unpackIter) appendComputed(buf []byte) []byte {
	for i, f := range u.st.us.computedMeta {
		if v := u.computed[i]; v.Type != 0 {
			buf = appendElem(buf, v.Type, f, v.Data)
		}
	}
	return buf
}

// finish closes the document in buf and keeps buf for the next one.
func (u *unpackIter) finish(buf []byte) bsoncore.Document {
	buf = append(buf, 0)
	binary.LittleEndian.PutUint32(buf, uint32(len(buf)))
	u.buf = buf
	return buf
}

// appendElem appends the element name: val of type t.
func appendElem(dst []byte, t bsoncore.Type, name string, val []byte) []byte {
	dst = append(dst, byte(t))
	dst = append(dst, name...)
	dst = append(dst, 0)
	return append(dst, val...)
}

// readElem splits the first element of src (a document's elements
// without its terminating NUL) into its type, key and value bytes,
// without allocating (bsonutil.ElementAt).
func readElem(src []byte) (t bsoncore.Type, key, val, rest []byte, ok bool) {
	el, ok := bsonutil.ElementAt(src, 0)
	if !ok {
		return 0, nil, nil, src, false
	}
	return el.Type, src[el.Name:el.NameEnd], src[el.NameEnd+1 : el.End], src[el.End:], true
}

// bucketID renders a bucket's _id for an error message.
func bucketID(b bsoncore.Document) string {
	v, err := b.LookupErr("_id")
	if err != nil {
		return "missing"
	}
	return v.String()
}
