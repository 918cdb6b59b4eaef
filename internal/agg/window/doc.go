// Package window implements the window functions of MongoDB 7.0's
// $setWindowFields: parsing each output field's operator and window
// bounds (documents or range, with an optional time unit), and the
// per-partition state that computes the operator over a window sliding
// forward through the sorted partition.
//
// A window function is fed the documents entering its window at the upper
// end (Func.Add) and told when the oldest document leaves it at the lower
// end (Func.Remove); windows only ever move forward, so every function
// keeps what it needs in first-in first-out order. $sum, $avg, $count,
// $min, $max, $stdDevPop/Samp, $covariancePop/Samp, $first, $last, $push,
// $addToSet, $shift and $integral update in O(1) (amortized) or
// O(log w) per document; any other accumulator of package accum
// ($firstN, $topN, ... and any added later) is recomputed over the values
// of the window (O(w)), or folded incrementally when the window's lower
// bound is unbounded.
package window
