// $median, $percentile and the trigonometry and bitwise operators through
// mongosh: the reference pages' testScores examples, the $sin page's
// decimal triangle, the bitwise pages' switches, and the refusals.
const d = db.getSiblingDB("exprs_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
d.testScores.insertMany([
  { studentId: "2345", test01: 62, test02: 81, test03: 80 },
  { studentId: "2356", test01: 60, test02: 83, test03: 79 },
  { studentId: "2358", test01: 67, test02: 82, test03: 78 },
  { studentId: "2367", test01: 64, test02: 72, test03: 77 },
  { studentId: "2369", test01: 60, test02: 53, test03: 72 },
]);
let r = d.testScores.aggregate([{ $group: { _id: null,
  test01_percentiles: { $percentile: { input: "$test01", p: [0.5, 0.75, 0.9, 0.95], method: "approximate" } },
  test01_median: { $median: { input: "$test01", method: "approximate" } } } }]).toArray();
check(EJSON.stringify(r[0].test01_percentiles) === "[62,64,67,67]", "$percentile: " + EJSON.stringify(r));
check(r[0].test01_median === 62, "$median: " + EJSON.stringify(r));
r = d.testScores.aggregate([{ $project: { _id: 0, studentId: 1,
  testPercentiles: { $percentile: { input: ["$test01", "$test02", "$test03"], p: [0.5, 0.95], method: "approximate" } } } }]).toArray();
check(EJSON.stringify(r.map((x) => x.testPercentiles)) === "[[80,81],[79,83],[78,82],[72,77],[60,72]]", "$percentile expression: " + EJSON.stringify(r));

let code = 0;
try { d.testScores.aggregate([{ $group: { _id: null, m: { $median: { input: "$test01", method: "continuous" } } } }]).toArray(); } catch (e) { code = e.code; }
check(code === 2, "method continuous: " + code);
code = 0;
try { d.testScores.aggregate([{ $group: { _id: null, m: { $percentile: { input: "$test01", p: [1.5], method: "approximate" } } } }]).toArray(); } catch (e) { code = e.code; }
check(code === 7750303, "p out of range: " + code);

d.trig.insertOne({ _id: 1, angle_a: NumberDecimal("53.13010235415597870314438744090659"), hypotenuse: NumberDecimal("5") });
r = d.trig.aggregate([{ $project: { side_b: { $multiply: [{ $sin: { $degreesToRadians: "$angle_a" } }, "$hypotenuse"] } } }]).toArray();
check(r[0].side_b.toString() === "4.000000000000000000000000000000000", "$sin: " + EJSON.stringify(r));
code = 0;
try { d.trig.aggregate([{ $project: { x: { $acos: 2 } } }]).toArray(); } catch (e) { code = e.code; }
check(code === 50989, "$acos domain: " + code);

d.switches.insertMany([{ _id: 0, a: NumberInt(0), b: NumberInt(127) }, { _id: 1, a: NumberInt(2), b: NumberInt(3) }, { _id: 2, a: NumberInt(3), b: NumberInt(5) }]);
r = d.switches.aggregate([{ $project: { result: { $bitAnd: ["$a", "$b"] } } }]).toArray();
check(r.map((x) => x.result).join() === "0,2,1", "$bitAnd: " + EJSON.stringify(r));

code = 0;
try { d.trig.find({ $where: "true" }).toArray(); } catch (e) { code = e.code; }
check(code === 238, "$where: " + code);
check(d.switches.find({ $sampleRate: 1 }).count() === 3, "$sampleRate 1");
d.dropDatabase();
print("exprs OK");
