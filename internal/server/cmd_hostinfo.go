package server

import (
	"context"
	"os"
	"runtime"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdHostInfo, requires(clusterNeeds(auth.ActHostInfo)), "hostInfo"))
}

// cmdHostInfo describes the machine Lode runs on.
func cmdHostInfo(_ context.Context, s *Server, _ *Request) (bsoncore.Document, error) {
	memMB := int64(memTotalBytes() / (1 << 20))
	osName, osVersion := osRelease()
	return bsoncore.NewDocumentBuilder().
		AppendDocument("system", bsoncore.NewDocumentBuilder().
			AppendDateTime("currentTime", time.Now().UnixMilli()).
			AppendString("hostname", s.host).
			AppendInt32("cpuAddrSize", 64).
			AppendInt64("memSizeMB", memMB).
			AppendInt64("memLimitMB", memMB).
			AppendInt32("numCores", int32(runtime.NumCPU())).
			AppendString("cpuArch", runtime.GOARCH).
			AppendBoolean("numaEnabled", false).Build()).
		AppendDocument("os", bsoncore.NewDocumentBuilder().
			AppendString("type", strings.ToUpper(runtime.GOOS[:1])+runtime.GOOS[1:]).
			AppendString("name", osName).
			AppendString("version", osVersion).Build()).
		AppendDocument("extra", bsoncore.NewDocumentBuilder().
			AppendString("versionString", runtime.Version()).Build()).
		Build(), nil
}

// memTotalBytes reads MemTotal from /proc/meminfo (0 when unknown).
func memTotalBytes() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			var kb uint64
			for _, f := range strings.Fields(line)[1:2] {
				for _, ch := range f {
					kb = kb*10 + uint64(ch-'0')
				}
			}
			return kb * 1024
		}
	}
	return 0
}

// osRelease reads the distribution name and version from /etc/os-release.
func osRelease() (name, version string) {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return runtime.GOOS, ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		switch k {
		case "NAME":
			name = v
		case "VERSION_ID":
			version = v
		}
	}
	return name, version
}
