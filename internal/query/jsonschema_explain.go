package query

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// The errInfo.details of a $jsonSchema validation failure, in the shape
// mongod (5.0+) gives it: {operatorName: "$jsonSchema",
// schemaRulesNotSatisfied: [...]}, one entry per keyword not satisfied,
// each {operatorName: keyword, specifiedAs: {keyword: value}, ...} with
// the keyword's own fields (reason, consideredValue, missingProperties,
// propertiesNotSatisfied...). Rules are listed in the schema's keyword
// order, which may differ from mongod's.

// failureDetails is the details document of n failing on doc.
func (n *JSONSchemaNode) failureDetails(doc bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("operatorName", "$jsonSchema")
	if title, ok := n.Schema.Lookup("title").StringValueOK(); ok {
		b.AppendString("title", title)
	}
	if desc, ok := n.Schema.Lookup("description").StringValueOK(); ok {
		b.AppendString("description", desc)
	}
	b.AppendArray("schemaRulesNotSatisfied", docArray(n.root.failures(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc})))
	return b.Build()
}

func docArray(ds []bsoncore.Document) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, d := range ds {
		ab.AppendDocument(d)
	}
	return ab.Build()
}

// rule starts a rule not satisfied: operatorName and specifiedAs (the
// keyword as written in the schema).
func (s *schema) rule(keyword string, extra ...string) *bsoncore.DocumentBuilder {
	b := bsoncore.NewDocumentBuilder().AppendString("operatorName", keyword)
	spec := bsoncore.NewDocumentBuilder()
	for _, k := range append([]string{keyword}, extra...) {
		if v, err := s.raw.LookupErr(k); err == nil {
			spec.AppendValue(k, v)
		}
	}
	return b.AppendDocument("specifiedAs", spec.Build())
}

// failures lists the rules of s that v does not satisfy.
func (s *schema) failures(v bsoncore.Value) []bsoncore.Document {
	var out []bsoncore.Document
	if (s.types != nil || s.number) && !s.typeOK(v) {
		out = append(out, s.rule(s.typeKey).AppendString("reason", "type did not match").
			AppendValue("consideredValue", v).AppendString("consideredType", bsonutil.TypeName(v.Type)).Build())
	}
	if len(s.enum) > 0 {
		found := false
		for _, e := range s.enum {
			found = found || bsonutil.Equal(e, v)
		}
		if !found {
			out = append(out, s.rule("enum").AppendString("reason", "value was not found in enum").AppendValue("consideredValue", v).Build())
		}
	}
	switch {
	case bsonutil.IsNumber(v.Type):
		out = append(out, s.numberFailures(v)...)
	case v.Type == bsoncore.TypeString:
		out = append(out, s.stringFailures(v)...)
	case v.Type == bsoncore.TypeArray:
		out = append(out, s.arrayFailures(v)...)
	case v.Type == bsoncore.TypeEmbeddedDocument:
		out = append(out, s.objectFailures(v.Document())...)
	}
	return append(out, s.logicalFailures(v)...)
}

func (s *schema) numberFailures(v bsoncore.Value) []bsoncore.Document {
	var out []bsoncore.Document
	if s.minimum != nil && !(&schema{minimum: s.minimum, exclMin: s.exclMin}).numberOK(v) {
		out = append(out, s.rule("minimum", "exclusiveMinimum").AppendString("reason", "comparison failed").AppendValue("consideredValue", v).Build())
	}
	if s.maximum != nil && !(&schema{maximum: s.maximum, exclMax: s.exclMax}).numberOK(v) {
		out = append(out, s.rule("maximum", "exclusiveMaximum").AppendString("reason", "comparison failed").AppendValue("consideredValue", v).Build())
	}
	return out
}

func (s *schema) stringFailures(v bsoncore.Value) []bsoncore.Document {
	var out []bsoncore.Document
	n := stringLength(v.StringValue())
	if s.minLen >= 0 && n < s.minLen {
		out = append(out, s.rule("minLength").AppendString("reason", "specified string length was not satisfied").AppendValue("consideredValue", v).Build())
	}
	if s.maxLen >= 0 && n > s.maxLen {
		out = append(out, s.rule("maxLength").AppendString("reason", "specified string length was not satisfied").AppendValue("consideredValue", v).Build())
	}
	if s.pattern != nil && !s.pattern.Matches(v.StringValue()) {
		out = append(out, s.rule("pattern").AppendString("reason", "regular expression did not match").AppendValue("consideredValue", v).Build())
	}
	return out
}

func (s *schema) arrayFailures(v bsoncore.Value) []bsoncore.Document {
	var out []bsoncore.Document
	vals, _ := v.Array().Values()
	n := int64(len(vals))
	if s.minItems >= 0 && n < s.minItems {
		out = append(out, s.rule("minItems").AppendString("reason", "array did not match specified length").AppendValue("consideredValue", v).Build())
	}
	if s.maxItems >= 0 && n > s.maxItems {
		out = append(out, s.rule("maxItems").AppendString("reason", "array did not match specified length").AppendValue("consideredValue", v).Build())
	}
	if s.unique {
	dup:
		for i := range vals {
			for j := 0; j < i; j++ {
				if bsonutil.Equal(vals[i], vals[j]) {
					out = append(out, s.rule("uniqueItems").AppendString("reason", "found a duplicate item").
						AppendValue("consideredValue", v).AppendValue("duplicatedValue", vals[i]).Build())
					break dup
				}
			}
		}
	}
	itemFailure := func(keyword string, sub *schema, i int) bsoncore.Document {
		return s.rule(keyword).AppendString("reason", "At least one item did not match the sub-schema").
			AppendInt32("itemIndex", int32(i)).AppendArray("details", docArray(sub.failures(vals[i]))).Build()
	}
	if s.itemsOne != nil {
		for i, x := range vals {
			if !s.itemsOne.matches(x) {
				out = append(out, itemFailure("items", s.itemsOne, i))
				break
			}
		}
	}
	if s.hasTuple {
		for i, x := range vals {
			if i < len(s.itemsTuple) {
				if !s.itemsTuple[i].matches(x) {
					out = append(out, itemFailure("items", s.itemsTuple[i], i))
					break
				}
				continue
			}
			if s.noAddItems {
				out = append(out, s.rule("additionalItems").AppendString("reason", "found additional items").AppendValue("consideredValue", v).Build())
				break
			}
			if s.addItems != nil && !s.addItems.matches(x) {
				out = append(out, itemFailure("additionalItems", s.addItems, i))
				break
			}
		}
	}
	return out
}

func (s *schema) objectFailures(d bsoncore.Document) []bsoncore.Document {
	var out []bsoncore.Document
	els, _ := d.Elements()
	n := int64(len(els))
	if (s.minProps >= 0 && n < s.minProps) || (s.maxProps >= 0 && n > s.maxProps) {
		k := "minProperties"
		if s.maxProps >= 0 && n > s.maxProps {
			k = "maxProperties"
		}
		out = append(out, s.rule(k).AppendString("reason", "specified number of properties was not satisfied").AppendInt32("numberOfProperties", int32(n)).Build())
	}
	var missing []string
	for _, r := range s.required {
		if _, err := d.LookupErr(r); err != nil {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		out = append(out, s.rule("required").AppendArray("missingProperties", stringArray(missing)).Build())
	}
	props := bsoncore.NewArrayBuilder()
	nProps := 0
	var extra []string
	deps := bsoncore.NewArrayBuilder()
	nDeps := 0
	for _, el := range els {
		k, v := el.Key(), el.Value()
		known := false
		if sub, ok := s.properties[k]; ok {
			known = true
			if !sub.matches(v) {
				props.AppendDocument(propertyFailure(k, sub, v))
				nProps++
			}
		}
		for _, p := range s.patProps {
			if p.re.Matches(k) {
				known = true
				if !p.s.matches(v) {
					props.AppendDocument(propertyFailure(k, p.s, v))
					nProps++
				}
			}
		}
		if !known && (s.noAddProps || (s.addProps != nil && !s.addProps.matches(v))) {
			extra = append(extra, k)
		}
		if sub, ok := s.depSchemas[k]; ok {
			whole := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
			if !sub.matches(whole) {
				deps.AppendDocument(bsoncore.NewDocumentBuilder().AppendString("conditionalProperty", k).
					AppendArray("details", docArray(sub.failures(whole))).Build())
				nDeps++
			}
		}
		var depMissing []string
		for _, f := range s.depFields[k] {
			if _, err := d.LookupErr(f); err != nil {
				depMissing = append(depMissing, f)
			}
		}
		if len(depMissing) > 0 {
			deps.AppendDocument(bsoncore.NewDocumentBuilder().AppendString("conditionalProperty", k).
				AppendArray("missingProperties", stringArray(depMissing)).Build())
			nDeps++
		}
	}
	if nProps > 0 {
		kw := "properties"
		if len(s.properties) == 0 {
			kw = "patternProperties"
		}
		// As in mongod, without specifiedAs (the whole properties object).
		out = append(out, bsoncore.NewDocumentBuilder().AppendString("operatorName", kw).
			AppendArray("propertiesNotSatisfied", props.Build()).Build())
	}
	if len(extra) > 0 {
		out = append(out, s.rule("additionalProperties").AppendArray("additionalProperties", stringArray(extra)).Build())
	}
	if nDeps > 0 {
		out = append(out, s.rule("dependencies").AppendArray("failingDependencies", deps.Build()).Build())
	}
	return out
}

// propertyFailure is one propertiesNotSatisfied entry.
func propertyFailure(name string, sub *schema, v bsoncore.Value) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("propertyName", name)
	if t, ok := sub.raw.Lookup("title").StringValueOK(); ok {
		b.AppendString("title", t)
	}
	if desc, ok := sub.raw.Lookup("description").StringValueOK(); ok {
		b.AppendString("description", desc)
	}
	return b.AppendArray("details", docArray(sub.failures(v))).Build()
}

func (s *schema) logicalFailures(v bsoncore.Value) []bsoncore.Document {
	var out []bsoncore.Document
	notSatisfied := func(subs []*schema) (bsoncore.Array, int) {
		ab := bsoncore.NewArrayBuilder()
		n := 0
		for i, sub := range subs {
			if !sub.matches(v) {
				ab.AppendDocument(bsoncore.NewDocumentBuilder().AppendInt32("index", int32(i)).
					AppendArray("details", docArray(sub.failures(v))).Build())
				n++
			}
		}
		return ab.Build(), n
	}
	if a, n := notSatisfied(s.allOf); n > 0 {
		out = append(out, s.rule("allOf").AppendArray("schemasNotSatisfied", a).Build())
	}
	if a, n := notSatisfied(s.anyOf); len(s.anyOf) > 0 && n == len(s.anyOf) {
		out = append(out, s.rule("anyOf").AppendArray("schemasNotSatisfied", a).Build())
	}
	if len(s.oneOf) > 0 {
		var matching []int
		for i, sub := range s.oneOf {
			if sub.matches(v) {
				matching = append(matching, i)
			}
		}
		switch {
		case len(matching) == 0:
			a, _ := notSatisfied(s.oneOf)
			out = append(out, s.rule("oneOf").AppendArray("schemasNotSatisfied", a).Build())
		case len(matching) > 1:
			ab := bsoncore.NewArrayBuilder()
			sort.Ints(matching)
			for _, i := range matching {
				ab.AppendInt32(int32(i))
			}
			out = append(out, s.rule("oneOf").AppendString("reason", "more than one subschema matched").
				AppendArray("matchingSchemaIndexes", ab.Build()).Build())
		}
	}
	if s.not != nil && s.not.matches(v) {
		out = append(out, s.rule("not").AppendString("reason", "child expression matched").Build())
	}
	return out
}

func stringArray(ss []string) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, x := range ss {
		ab.AppendString(x)
	}
	return ab.Build()
}
