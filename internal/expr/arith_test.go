package expr

import "testing"

func TestArithmetic(t *testing.T) {
	runCases(t, []tc{
		// $add docs: price + fee; date + millis
		{expr: `{"$add": ["$price", "$fee"]}`, doc: `{"price": 10, "fee": 2}`, want: `12`},
		{expr: `{"$add": ["$date", 259200000]}`, doc: `{"date": {"$date": "2014-03-01T08:00:00Z"}}`, want: `{"$date": "2014-03-04T08:00:00Z"}`},
		{expr: `{"$add": [1, 2.5]}`, want: `3.5`},
		{expr: `{"$add": [2147483647, 1]}`, want: `{"$numberLong": "2147483648"}`},
		{expr: `{"$add": [{"$numberLong": "9223372036854775807"}, 1]}`, want: `9223372036854775808.0`},
		{expr: `{"$add": [{"$numberDecimal": "1.1"}, 2]}`, want: `{"$numberDecimal": "3.1"}`},
		{expr: `{"$add": [1, "$missing"]}`, want: `null`},
		{expr: `{"$add": [1, "a"]}`, code: 16554},
		{expr: `{"$add": ["$d", "$d"]}`, doc: `{"d": {"$date": "2020-01-01T00:00:00Z"}}`, code: 16612},
		// $subtract docs
		{expr: `{"$subtract": [{"$add": ["$price", "$fee"]}, "$discount"]}`, doc: `{"price": 10, "fee": 2, "discount": 5}`, want: `7`},
		{expr: `{"$subtract": ["$date", 300000]}`, doc: `{"date": {"$date": "2014-03-01T08:00:00Z"}}`, want: `{"$date": "2014-03-01T07:55:00Z"}`},
		{expr: `{"$subtract": ["$b", "$a"]}`, doc: `{"a": {"$date": "2014-03-01T08:00:00Z"}, "b": {"$date": "2014-03-01T08:00:01Z"}}`, want: `{"$numberLong": "1000"}`},
		{expr: `{"$subtract": [-2147483648, 1]}`, want: `{"$numberLong": "-2147483649"}`},
		{expr: `{"$subtract": [1]}`, code: 16020},
		// $multiply
		{expr: `{"$multiply": ["$price", "$quantity"]}`, doc: `{"price": 10, "quantity": 2}`, want: `20`},
		{expr: `{"$multiply": [65536, 65536]}`, want: `{"$numberLong": "4294967296"}`},
		{expr: `{"$multiply": [{"$numberLong": "4611686018427387904"}, 4]}`, want: `1.8446744073709552e19`},
		{expr: `{"$multiply": [{"$numberDecimal": "1.5"}, 2]}`, want: `{"$numberDecimal": "3.0"}`},
		// $divide docs: hours / 8
		{expr: `{"$divide": ["$hours", 8]}`, doc: `{"hours": 80}`, want: `10.0`},
		{expr: `{"$divide": [1, 0]}`, code: 2},
		{expr: `{"$divide": [{"$numberDecimal": "1"}, 4]}`, want: `{"$numberDecimal": "0.25"}`},
		// $mod docs: hours mod tasks
		{expr: `{"$mod": ["$hours", "$tasks"]}`, doc: `{"hours": 80, "tasks": 7}`, want: `3`},
		{expr: `{"$mod": [-5, 3]}`, want: `-2`},
		// MongoDB's own expression_mod test: an integral double divisor
		// keeps the integer type, a double dividend or a divisor past
		// int32 gives a double.
		{expr: `{"$mod": [{"$numberInt": "8"}, 3.0]}`, want: `{"$numberInt": "2"}`},
		{expr: `{"$mod": [{"$numberLong": "8"}, 3.0]}`, want: `{"$numberLong": "2"}`},
		{expr: `{"$mod": [{"$numberLong": "500000000000"}, 450000000000.0]}`, want: `{"$numberDouble": "50000000000.0"}`},
		{expr: `{"$mod": [138.5, 3.0]}`, want: `0.5`},
		{expr: `{"$mod": [{"$numberInt": "8"}, 3.25]}`, want: `1.5`},
		{expr: `{"$mod": [5.5, 2]}`, want: `1.5`},
		{expr: `{"$mod": [5, 0]}`, code: 16610},
		// $abs, $ceil, $floor
		{expr: `{"$abs": -5}`, want: `5`},
		{expr: `{"$abs": -2147483648}`, want: `{"$numberLong": "2147483648"}`},
		{expr: `{"$abs": null}`, want: `null`},
		{expr: `{"$ceil": 7.80}`, want: `8.0`},
		{expr: `{"$ceil": -2.8}`, want: `-2.0`},
		{expr: `{"$floor": -2.8}`, want: `-3.0`},
		{expr: `{"$floor": 5}`, want: `5`},
		{expr: `{"$floor": {"$numberDecimal": "-2.5"}}`, want: `{"$numberDecimal": "-3"}`},
		{expr: `{"$ceil": "x"}`, code: 28765},
		// $round / $trunc docs (value 19.25, 28.73, 34.32, -45.39)
		{expr: `{"$round": ["$v", 1]}`, doc: `{"v": 19.25}`, want: `19.2`},
		{expr: `{"$round": ["$v", 1]}`, doc: `{"v": 28.73}`, want: `28.7`},
		{expr: `{"$round": ["$v", 1]}`, doc: `{"v": -45.39}`, want: `-45.4`},
		{expr: `{"$round": ["$v", -1]}`, doc: `{"v": 19.25}`, want: `20.0`},
		{expr: `{"$round": ["$v", -1]}`, doc: `{"v": 34.32}`, want: `30.0`},
		{expr: `{"$round": ["$v", -1]}`, doc: `{"v": -45.39}`, want: `-50.0`},
		{expr: `{"$round": ["$v", 0]}`, doc: `{"v": 28.73}`, want: `29.0`},
		{expr: `{"$round": [10.5, 0]}`, want: `10.0`},
		{expr: `{"$round": [11.5, 0]}`, want: `12.0`},
		{expr: `{"$round": [1234, -2]}`, want: `1200`},
		{expr: `{"$trunc": ["$v", 1]}`, doc: `{"v": 19.25}`, want: `19.2`},
		{expr: `{"$trunc": ["$v", 1]}`, doc: `{"v": -45.39}`, want: `-45.3`},
		{expr: `{"$trunc": ["$v", -1]}`, doc: `{"v": 28.73}`, want: `20.0`},
		{expr: `{"$trunc": ["$v", 0]}`, doc: `{"v": -45.39}`, want: `-45.0`},
		{expr: `{"$round": [{"$numberDecimal": "1.2345"}, 2]}`, want: `{"$numberDecimal": "1.23"}`},
		{expr: `{"$round": [1.5, 101]}`, code: 51083},
		// $pow, $sqrt, $exp, $ln, $log, $log10
		{expr: `{"$pow": [5, 0]}`, want: `1`},
		{expr: `{"$pow": [2, 10]}`, want: `1024`},
		{expr: `{"$pow": [2, 40]}`, want: `{"$numberLong": "1099511627776"}`},
		{expr: `{"$pow": [2, -1]}`, want: `0.5`},
		{expr: `{"$pow": [0, -1]}`, code: 28764},
		{expr: `{"$sqrt": 25}`, want: `5.0`},
		{expr: `{"$sqrt": -1}`, code: 28714},
		{expr: `{"$exp": 0}`, want: `1.0`},
		{expr: `{"$ln": 1}`, want: `0.0`},
		{expr: `{"$ln": 0}`, code: 28766},
		{expr: `{"$log": [100, 10]}`, want: `2.0`},
		{expr: `{"$log10": 1000}`, want: `3.0`},
		{expr: `{"$log10": -1}`, code: 28761},
	})
}
