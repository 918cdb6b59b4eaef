package errs

// The numbered assertions of mongod's $_internalUnpackBucket and
// $_unpackBucket stages (internal/agg/unpackbucket.go): the checks of the
// stage's specification and of the buckets it reads.
const (
	Location5346500 Code = 5346500
	Location5346501 Code = 5346501
	Location5346502 Code = 5346502
	Location5346503 Code = 5346503
	Location5346504 Code = 5346504
	Location5346505 Code = 5346505
	Location5346506 Code = 5346506
	Location5346508 Code = 5346508
	Location5346509 Code = 5346509
	Location5346510 Code = 5346510
	Location5346700 Code = 5346700
	Location5369600 Code = 5369600
	Location5369601 Code = 5369601
	Location5408000 Code = 5408000
	Location5509900 Code = 5509900
	Location5509901 Code = 5509901
	Location5509902 Code = 5509902
	Location5510600 Code = 5510600
	Location5510601 Code = 5510601
	Location5510602 Code = 5510602
	Location5545700 Code = 5545700
	Location5612400 Code = 5612400
	Location5612401 Code = 5612401
	Location5612402 Code = 5612402
	Location5612403 Code = 5612403
	Location5612404 Code = 5612404
	Location5612405 Code = 5612405
	Location6067202 Code = 6067202
	Location6067203 Code = 6067203
	Location6460208 Code = 6460208
	Location6460209 Code = 6460209
	Location6646901 Code = 6646901
	Location7026902 Code = 7026902
	Location7026903 Code = 7026903
	// $_internalBoundedSort (unpackbucket_sort.go).
	Location6369910 Code = 6369910
)
