package expr

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$type": parseType, "$isNumber": parseIsNumber, "$convert": parseConvert,
		"$toString": toOp("string"), "$toInt": toOp("int"), "$toLong": toOp("long"),
		"$toDouble": toOp("double"), "$toDecimal": toOp("decimal"), "$toDate": toOp("date"),
		"$toBool": toOp("bool"), "$toObjectId": toOp("objectId"),
	})
}

// numToString formats a number as $toString does. mongod writes a double
// with C's "%g" (its StringBuilder's, six significant digits: 1/3 is
// "0.333333", 1234567.0 "1.23457e+06"), not the shortest form that reads
// back as the same double.
func numToString(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return strconv.FormatInt(bsonutil.AsInt64(v), 10)
	case bsoncore.TypeDouble:
		f := v.Double()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return strconv.FormatFloat(f, 'g', 6, 64)
	case bsoncore.TypeDecimal128:
		return bsonutil.Decimal(v).String()
	}
	return ""
}

var (
	parseType = unary(func(_ string, v bsoncore.Value) (bsoncore.Value, error) {
		return String(bsonutil.TypeName(v.Type)), nil
	})
	parseIsNumber = unary(func(_ string, v bsoncore.Value) (bsoncore.Value, error) {
		return Bool(isNum(v)), nil
	})
)

func toOp(target string) opParser {
	return unaryNullable(func(_ string, v bsoncore.Value) (bsoncore.Value, error) {
		return Convert(v, target)
	})
}

// targetName resolves a $convert 'to' value (name or numeric alias).
func targetName(v bsoncore.Value) (string, error) {
	if v.Type == bsoncore.TypeString {
		s := v.StringValue()
		if !convertTargets[s] {
			return "", errs.New(errs.BadValue, "Unknown type name: %s", s)
		}
		return s, nil
	}
	if isNum(v) {
		n, ok := asIntegral(v)
		if !ok {
			return "", errs.New(errs.FailedToParse, "In $convert, numeric 'to' argument is not an integer")
		}
		if n == -1 || n == 127 || (n >= 1 && n <= 19) {
			return bsonutil.TypeName(bsoncore.Type(byte(n))), nil
		}
		return "", errs.New(errs.FailedToParse, "In $convert, numeric value for 'to' does not correspond to a BSON type: %d", n)
	}
	return "", errs.New(errs.FailedToParse, "$convert's 'to' argument must be a string or number, but is %s", bsonutil.TypeName(v.Type))
}

func parseConvert(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.FailedToParse, "$convert expects an object of named arguments but found: %s", bsonutil.TypeName(args.Type))
	}
	spec, err := parseSpec(name, args, pc, nil, "input", "to", "onError", "onNull")
	if err != nil {
		return nil, errs.New(errs.FailedToParse, "$convert found an unknown argument: %s", strings.TrimPrefix(err.(*errs.Error).Msg, name+" found an unknown argument: "))
	}
	if spec["input"] == nil {
		return nil, errs.New(errs.FailedToParse, "Missing 'input' parameter to $convert")
	}
	if spec["to"] == nil {
		return nil, errs.New(errs.FailedToParse, "Missing 'to' parameter to $convert")
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		in, err := spec["input"].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		tv, err := spec["to"].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(in) {
			if spec["onNull"] != nil {
				return spec["onNull"].Eval(doc, vars)
			}
			return Null, nil
		}
		if IsNullish(tv) {
			return Null, nil
		}
		target, err := targetName(tv)
		if err != nil {
			return Missing, err
		}
		out, err := Convert(in, target)
		if err != nil {
			if spec["onError"] != nil && errs.Is(err, errs.ConversionFailure) {
				return spec["onError"].Eval(doc, vars)
			}
			return Missing, err
		}
		return out, nil
	}), nil
}

func convErr(format string, args ...any) error {
	return errs.New(errs.ConversionFailure, "%s in $convert with no onError value%s", fmt.Sprintf(format, args...), "")
}

func convErrV(msg string, v string) error {
	return errs.New(errs.ConversionFailure, "%s in $convert with no onError value: %s", msg, v)
}

// Convert converts a non-null value to the named type ("double",
// "string", "objectId", "bool", "date", "int", "long", "decimal") with
// $convert's rules. Failures are ConversionFailure (241) errors.
func Convert(v bsoncore.Value, target string) (bsoncore.Value, error) {
	unsupported := func() (bsoncore.Value, error) {
		return Missing, convErr("Unsupported conversion from %s to %s", bsonutil.TypeName(v.Type), target)
	}
	switch target {
	case "bool":
		switch v.Type {
		case bsoncore.TypeBoolean:
			return v, nil
		case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
			return Bool(!numIsZero(v)), nil
		case bsoncore.TypeNull, bsoncore.TypeUndefined:
			return unsupported()
		}
		// Every other type converts to true, as in mongod's table
		// (strings, ids, dates, timestamps, documents, arrays, binary
		// data, regexes, code, symbols, MinKey, MaxKey).
		return valTrue, nil
	case "string":
		switch v.Type {
		case bsoncore.TypeString:
			return v, nil
		case bsoncore.TypeBoolean:
			return String(strconv.FormatBool(v.Boolean())), nil
		case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
			return String(numToString(v)), nil
		case bsoncore.TypeObjectID:
			id := v.ObjectID()
			return String(hex.EncodeToString(id[:])), nil
		case bsoncore.TypeDateTime:
			s, err := formatDate(defaultDateFormat, v.DateTime(), utcZone())
			if err != nil {
				return Missing, err
			}
			return String(s), nil
		case bsoncore.TypeSymbol:
			return String(v.Symbol()), nil
		}
		return unsupported()
	case "objectId":
		switch v.Type {
		case bsoncore.TypeObjectID:
			return v, nil
		case bsoncore.TypeString:
			s := v.StringValue()
			if len(s) != 24 {
				return Missing, convErrV(fmt.Sprintf("Failed to parse objectId '%s'", s), fmt.Sprintf("Invalid string length for parsing to OID, expected 24 but found %d", len(s)))
			}
			b, err := hex.DecodeString(s)
			if err != nil {
				return Missing, convErrV(fmt.Sprintf("Failed to parse objectId '%s'", s), "Invalid character found in hex string")
			}
			return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: b}, nil
		}
		return unsupported()
	case "date":
		switch v.Type {
		case bsoncore.TypeDateTime:
			return v, nil
		case bsoncore.TypeTimestamp, bsoncore.TypeObjectID:
			ms, _ := toMillis("$convert", v)
			return Date(ms), nil
		case bsoncore.TypeInt64:
			return Date(v.Int64()), nil
		case bsoncore.TypeDouble, bsoncore.TypeDecimal128:
			f := asF(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return Missing, convErrV("Attempt to convert NaN value to integer type", fmtNum(v))
			}
			ms, ok := float64ToInt64(math.Trunc(f))
			if !ok {
				return Missing, convErrV("Conversion would overflow target type", fmtNum(v))
			}
			return Date(ms), nil
		case bsoncore.TypeString:
			ms, err := parseDateString(v.StringValue(), "", nil)
			if err != nil {
				return Missing, errs.New(errs.ConversionFailure, "%s", err.(*errs.Error).Msg)
			}
			return Date(ms), nil
		}
		return unsupported()
	case "int", "long":
		var i int64
		switch v.Type {
		case bsoncore.TypeBoolean:
			if v.Boolean() {
				i = 1
			}
		case bsoncore.TypeInt32, bsoncore.TypeInt64:
			i = bsonutil.AsInt64(v)
		case bsoncore.TypeDouble, bsoncore.TypeDecimal128:
			f := asF(v)
			if math.IsNaN(f) {
				return Missing, convErrV("Attempt to convert NaN value to integer type", fmtNum(v))
			}
			if math.IsInf(f, 0) {
				return Missing, convErrV("Attempt to convert infinity value to integer type", fmtNum(v))
			}
			x, ok := float64ToInt64(math.Trunc(f))
			if !ok {
				return Missing, convErrV("Conversion would overflow target type", fmtNum(v))
			}
			i = x
		case bsoncore.TypeDateTime:
			if target == "int" {
				return unsupported()
			}
			i = v.DateTime()
		case bsoncore.TypeString:
			s := v.StringValue()
			x, err := strconv.ParseInt(s, 10, 64)
			bits := 64
			if target == "int" {
				bits = 32
			}
			if err == nil && bits == 32 && (x < math.MinInt32 || x > math.MaxInt32) {
				err = strconv.ErrRange
			}
			if err != nil {
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange || err == strconv.ErrRange {
					return Missing, convErrV(fmt.Sprintf("Failed to parse number '%s'", s), "Overflow")
				}
				return Missing, convErrV(fmt.Sprintf("Failed to parse number '%s'", s), badDigit(s))
			}
			i = x
		default:
			return unsupported()
		}
		if target == "int" {
			if i < math.MinInt32 || i > math.MaxInt32 {
				return Missing, convErrV("Conversion would overflow target type", fmtNum(v))
			}
			return Int32(int32(i)), nil
		}
		return Int64(i), nil
	case "double":
		switch v.Type {
		case bsoncore.TypeBoolean:
			if v.Boolean() {
				return Double(1), nil
			}
			return Double(0), nil
		case bsoncore.TypeDouble:
			return v, nil
		case bsoncore.TypeInt32, bsoncore.TypeInt64:
			return Double(asF(v)), nil
		case bsoncore.TypeDecimal128:
			f := asF(v)
			if math.IsInf(f, 0) && !toDec(v).special() {
				return Missing, convErrV("Conversion would overflow target type", fmtNum(v))
			}
			return Double(f), nil
		case bsoncore.TypeDateTime:
			return Double(float64(v.DateTime())), nil
		case bsoncore.TypeString:
			s := v.StringValue()
			f, err := parseMongoFloat(s)
			if err != nil {
				return Missing, convErrV(fmt.Sprintf("Failed to parse number '%s'", s), "Did not consume whole string.")
			}
			return Double(f), nil
		}
		return unsupported()
	case "decimal":
		switch v.Type {
		case bsoncore.TypeBoolean:
			if v.Boolean() {
				return dec{c: bigOne(), e: 0}.value(), nil
			}
			return dec{c: bigZero(), e: 0}.value(), nil
		case bsoncore.TypeDecimal128:
			return v, nil
		case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble:
			return toDec(v).value(), nil
		case bsoncore.TypeDateTime:
			return toDec(Int64(v.DateTime())).value(), nil
		case bsoncore.TypeString:
			s := v.StringValue()
			d, err := bson.ParseDecimal128(s)
			if err != nil {
				return Missing, convErrV(fmt.Sprintf("Failed to parse number '%s'", s), "Failed to parse string to decimal")
			}
			return DecimalValue(d), nil
		}
		return unsupported()
	}
	if convertTargets[target] {
		// A type $convert names but cannot produce (object, array,
		// minKey ...): a conversion failure, which onError catches.
		return unsupported()
	}
	return Missing, errs.New(errs.BadValue, "Unknown type name: %s", target)
}

// convertTargets are the type names $convert's 'to' accepts: every BSON
// type's alias and "missing", as mongod parses them; only eight of them
// are conversions it makes.
var convertTargets = map[string]bool{
	"double": true, "string": true, "object": true, "array": true, "binData": true, "undefined": true,
	"objectId": true, "bool": true, "date": true, "null": true, "regex": true, "dbPointer": true,
	"javascript": true, "symbol": true, "javascriptWithScope": true, "int": true, "timestamp": true,
	"long": true, "decimal": true, "minKey": true, "maxKey": true, "missing": true,
}

func parseMongoFloat(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "nan":
		return math.NaN(), nil
	case "inf", "infinity":
		return math.Inf(1), nil
	case "-inf", "-infinity":
		return math.Inf(-1), nil
	}
	if s == "" || strings.ContainsAny(s, "xXpP_") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

func badDigit(s string) string {
	for i, c := range s {
		if (c < '0' || c > '9') && !(i == 0 && (c == '-' || c == '+')) {
			return fmt.Sprintf("Bad digit \"%c\" while parsing %s", c, s)
		}
	}
	return "No digits"
}

func fmtNum(v bsoncore.Value) string {
	if v.Type == bsoncore.TypeDouble {
		f := v.Double()
		if math.IsNaN(f) {
			return "nan"
		}
		if math.IsInf(f, 1) {
			return "inf"
		}
		if math.IsInf(f, -1) {
			return "-inf"
		}
	}
	return numToString(v)
}
