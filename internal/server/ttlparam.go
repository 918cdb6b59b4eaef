package server

import "time"

// setTTLSleep applies setParameter ttlMonitorSleepSecs to the engine's
// TTL monitor.
func (s *Server) setTTLSleep(secs int64) {
	s.eng.SetTTLMonitorSleep(time.Duration(secs) * time.Second)
}
