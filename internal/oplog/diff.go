package oplog

import (
	"bytes"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// UpdateO returns an update entry's o field for the change from pre to
// post, in mongod's $v: 2 delta format: {$v: 2, diff: {d: {removed:
// false}, u: {changed: value}, i: {added: value}, s<field>: subdiff}}.
// An embedded document or array present on both sides is described by a
// subdiff; an array's subdiff is {a: true, l: newLength when it shrank,
// u<index>: value, s<index>: subdiff}.
func UpdateO(pre, post bsoncore.Document) bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = bsoncore.AppendInt32Element(dst, "$v", 2)
	dst = appendDocDiff(dst, "diff", pre, post)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

func appendDocDiff(dst []byte, key string, pre, post bsoncore.Document) []byte {
	preEls, _ := pre.Elements()
	postEls, _ := post.Elements()
	inPost := make(map[string]bsoncore.Value, len(postEls))
	for _, el := range postEls {
		inPost[el.Key()] = el.Value()
	}
	inPre := make(map[string]bsoncore.Value, len(preEls))
	for _, el := range preEls {
		inPre[el.Key()] = el.Value()
	}
	var del, upd, ins, sub []byte
	for _, el := range preEls {
		if _, ok := inPost[el.Key()]; !ok {
			del = bsoncore.AppendBooleanElement(del, el.Key(), false)
		}
	}
	for _, el := range postEls {
		k, nv := el.Key(), el.Value()
		ov, ok := inPre[k]
		switch {
		case !ok:
			ins = bsoncore.AppendValueElement(ins, k, nv)
		case sameValue(ov, nv):
		case ov.Type == bsoncore.TypeEmbeddedDocument && nv.Type == bsoncore.TypeEmbeddedDocument:
			sub = appendDocDiff(sub, "s"+k, ov.Document(), nv.Document())
		case ov.Type == bsoncore.TypeArray && nv.Type == bsoncore.TypeArray:
			sub = appendArrayDiff(sub, "s"+k, ov.Array(), nv.Array())
		default:
			upd = bsoncore.AppendValueElement(upd, k, nv)
		}
	}
	idx, dst := bsoncore.AppendDocumentElementStart(dst, key)
	dst = appendSection(dst, "d", del)
	dst = appendSection(dst, "u", upd)
	dst = appendSection(dst, "i", ins)
	dst = append(dst, sub...)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

func appendArrayDiff(dst []byte, key string, pre, post bsoncore.Array) []byte {
	preVals, _ := pre.Values()
	postVals, _ := post.Values()
	idx, dst := bsoncore.AppendDocumentElementStart(dst, key)
	dst = bsoncore.AppendBooleanElement(dst, "a", true)
	if len(postVals) < len(preVals) {
		dst = bsoncore.AppendInt32Element(dst, "l", int32(len(postVals)))
	}
	for i, nv := range postVals {
		k := strconv.Itoa(i)
		if i >= len(preVals) {
			dst = bsoncore.AppendValueElement(dst, "u"+k, nv)
			continue
		}
		ov := preVals[i]
		switch {
		case sameValue(ov, nv):
		case ov.Type == bsoncore.TypeEmbeddedDocument && nv.Type == bsoncore.TypeEmbeddedDocument:
			dst = appendDocDiff(dst, "s"+k, ov.Document(), nv.Document())
		case ov.Type == bsoncore.TypeArray && nv.Type == bsoncore.TypeArray:
			dst = appendArrayDiff(dst, "s"+k, ov.Array(), nv.Array())
		default:
			dst = bsoncore.AppendValueElement(dst, "u"+k, nv)
		}
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

func appendSection(dst []byte, key string, els []byte) []byte {
	if len(els) == 0 {
		return dst
	}
	idx, dst := bsoncore.AppendDocumentElementStart(dst, key)
	dst = append(dst, els...)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// sameValue is byte equality of type and value: 1 and 1.0 differ, as a
// change from one to the other is a change.
func sameValue(a, b bsoncore.Value) bool {
	return a.Type == b.Type && bytes.Equal(a.Data, b.Data)
}
