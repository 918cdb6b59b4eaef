// Command inflood reproduces issue 15's memory case against a running
// `lode serve`: n clients each send find {arr: {$in: [0 .. 999999]}} (an
// 11 MB command) on raw sockets and disconnect after a short wait; it then
// samples the server's CPU time and RSS (from /proc, given -pid) every
// second for -watch.
//
//	go run ./internal/benchclients/inflood -addr 127.0.0.1:27100 -pid PID
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:27017", "server address")
	pid := flag.Int("pid", 0, "server PID, for RSS and CPU")
	clients := flag.Int("clients", 16, "clients")
	n := flag.Int("n", 1_000_000, "$in elements")
	wait := flag.Duration("wait", 50*time.Millisecond, "time before each client disconnects")
	watch := flag.Duration("watch", 60*time.Second, "how long to sample afterwards")
	coll := flag.String("coll", "big", "collection queried (database inflood)")
	flag.Parse()
	ab := bsoncore.NewArrayBuilder()
	for i := 0; i < *n; i++ {
		ab.AppendInt32(int32(i))
	}
	cmd := bsoncore.NewDocumentBuilder().AppendString("find", *coll).
		AppendDocument("filter", bsoncore.NewDocumentBuilder().AppendDocument("arr", bsoncore.NewDocumentBuilder().AppendArray("$in", ab.Build()).Build()).Build()).
		AppendString("$db", "inflood").Build()
	msg := wire.AppendMsg(nil, 1, 0, 0, cmd)
	fmt.Printf("%d clients, %.1f MB each, disconnect after %v\n", *clients, float64(len(msg))/1e6, *wait)
	before := sample(*pid)
	var wg sync.WaitGroup
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := net.Dial("tcp", *addr)
			if err != nil {
				log.Print(err)
				return
			}
			if _, err := nc.Write(msg); err != nil {
				log.Print(err)
			}
			time.Sleep(*wait)
			nc.Close()
		}()
	}
	wg.Wait()
	start := time.Now()
	prev := before
	fmt.Printf("t=0s rss %d MB cpu %.2fs\n", before.rss>>20, before.cpu)
	for time.Since(start) < *watch {
		time.Sleep(time.Second)
		s := sample(*pid)
		fmt.Printf("t=%.0fs rss %d MB cpu +%.2fs\n", time.Since(start).Seconds(), s.rss>>20, s.cpu-prev.cpu)
		prev = s
	}
}

type stat struct {
	rss int64
	cpu float64
}

func sample(pid int) stat {
	if pid == 0 {
		return stat{}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	rss, _ := strconv.ParseInt(f[21], 10, 64)
	return stat{rss: rss * int64(os.Getpagesize()), cpu: (ut + st) / 100}
}
