package exec

// Trial limits, as MongoDB's internalQueryPlanEvaluationWorks (10,000) and
// the batch a plan must produce to end the trial early (101).
const (
	TrialWorks   = 10000
	TrialResults = 101
)

// TrialResult is the outcome of one candidate's trial.
type TrialResult struct {
	Score float64
	Err   error
}

// PickBest runs a trial of the candidate plans: they work in turn until
// one produces TrialResults results or reaches EOF, or each has worked
// TrialWorks times. The score is MongoDB's: 1 + results per work, +1 for
// EOF, plus small bonuses for plans without a blocking SORT and without
// FETCH, and one of Lode's for plans that read no document they did not
// return. It returns the index of the best candidate (the first on ties, so
// the planner's static order breaks them) and every candidate's result.
func PickBest(cands []Stage) (int, []TrialResult) {
	res := make([]TrialResult, len(cands))
	done := make([]bool, len(cands))
	advanced := make([]int64, len(cands))
	eof := make([]bool, len(cands))
	for round := 0; round < TrialWorks; round++ {
		stop := false
		active := 0
		for i, c := range cands {
			if done[i] {
				continue
			}
			active++
			st, _, err := c.Work()
			if err != nil {
				res[i].Err = err
				done[i] = true
				continue
			}
			switch st {
			case Advanced:
				advanced[i]++
				if advanced[i] >= TrialResults {
					stop = true
				}
			case EOF:
				eof[i] = true
				done[i] = true
				stop = true
			}
		}
		if stop || active == 0 {
			break
		}
	}
	best := -1
	for i, c := range cands {
		if res[i].Err != nil {
			continue
		}
		works := c.Stats().Works
		if works == 0 {
			works = 1
		}
		score := 1 + float64(advanced[i])/float64(works)
		if eof[i] {
			score++
		}
		eps := min(1.0/(10*float64(works)), 1e-4)
		if !hasStage(c, "SORT") {
			score += eps
		}
		if !hasStage(c, "FETCH") {
			score += eps
		}
		// Lode's own tie-breaker: a plan that read no document it did
		// not return (its filters held on index keys) beats one that
		// read and rejected some, as a clustered scan of a time series'
		// buckets that reads those ending before the range does against
		// an index scan on control.min/control.max of the time field.
		if Sum(c).DocsExamined <= advanced[i] {
			score += eps
		}
		res[i].Score = score
		if best < 0 || score > res[best].Score {
			best = i
		}
	}
	return best, res
}

// hasStage reports whether the tree contains a stage called name.
func hasStage(s Stage, name string) bool {
	if s.Name() == name {
		return true
	}
	for _, c := range s.Children() {
		if hasStage(c, name) {
			return true
		}
	}
	return false
}
