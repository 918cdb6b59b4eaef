package server

import "sync/atomic"

// docsReturned counts documents sent in cursor batches (serverStatus
// metrics.document.returned). It is process-wide.
var docsReturned atomic.Int64
