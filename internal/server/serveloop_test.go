package server

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

// pingMsg is an OP_MSG ping with request id id; pad, when not empty, goes
// in its comment (a generic argument ping accepts), to make it large.
func pingMsg(id int32, pad string) []byte {
	b := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1)
	if pad != "" {
		b.AppendString("comment", pad)
	}
	return wire.AppendMsg(nil, id, 0, 0, b.AppendString("$db", "admin").Build())
}

// readReplies reads n replies from r and fails unless they answer the
// request ids want, in order, each with ok: 1.
func readReplies(t *testing.T, r *bufio.Reader, want ...int32) {
	t.Helper()
	for _, id := range want {
		m, err := wire.ReadMessage(r)
		if err != nil {
			t.Fatalf("reply to %d: %v", id, err)
		}
		msg := m.(*wire.Msg)
		if msg.Header.ResponseTo != id {
			t.Fatalf("reply to %d, want the reply to %d", msg.Header.ResponseTo, id)
		}
		body, err := msg.Merged()
		if err != nil || body.Lookup("ok").Double() != 1 {
			t.Fatalf("reply to %d: %v %v", id, body, err)
		}
	}
}

// Messages arrive however the network cuts them: several in one
// segment, one in pieces (inside its header and inside its body), larger
// than the read buffer (served outside the poller loop, which resumes
// after it), and a large one with a small one behind it. Each is answered
// once, in order.
func TestServeLoopFraming(t *testing.T) {
	_, addr := listenServer(t, Config{MessageTimeout: 10 * time.Second})
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(nc)
	write := func(b []byte) {
		t.Helper()
		if _, err := nc.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	write(pingMsg(1, ""))
	readReplies(t, r, 1)

	write(bytes.Join([][]byte{pingMsg(2, ""), pingMsg(3, "x"), pingMsg(4, "")}, nil))
	readReplies(t, r, 2, 3, 4)

	m := pingMsg(5, "split")
	for _, piece := range [][]byte{m[:2], m[2:9], m[9:30], m[30:]} {
		write(piece)
		time.Sleep(15 * time.Millisecond)
	}
	readReplies(t, r, 5)

	big := strings.Repeat("b", 3*readBufferSize)
	write(pingMsg(6, big))
	readReplies(t, r, 6)
	write(append(pingMsg(7, big), pingMsg(8, "")...))
	readReplies(t, r, 7, 8)
	write(append(pingMsg(9, ""), pingMsg(10, big)...))
	readReplies(t, r, 9, 10)
	for id := int32(11); id < 14; id++ {
		write(pingMsg(id, ""))
		readReplies(t, r, id)
	}
}

// A command that runs long enough to be watched for a disconnect, with
// the client's next request already sent behind it: the watcher sees
// data (the client is there) and lets it be; the loop answers both in
// order, and the watcher's own handle on the socket is closed.
func TestServeLoopPipelinedBehindWatchedCommand(t *testing.T) {
	t.Parallel()
	s, addr := listenServer(t, Config{TestCommands: true})
	fp := bsoncore.NewDocumentBuilder().AppendString("configureFailPoint", "failCommand").
		AppendDocument("mode", bsoncore.NewDocumentBuilder().AppendInt32("times", 1).Build()).
		AppendDocument("data", bsoncore.NewDocumentBuilder().
			AppendArray("failCommands", bsoncore.NewArrayBuilder().AppendString("ping").Build()).
			AppendBoolean("blockConnection", true).AppendInt32("blockTimeMS", int32(4*disconnectCheckDelay/time.Millisecond)).Build()).
		AppendString("$db", "admin").Build()
	if r := run(s, fp); r.Lookup("ok").Double() != 1 {
		t.Fatalf("configureFailPoint: %v", r)
	}
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := nc.Write(pingMsg(1, "")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * disconnectCheckDelay) // the watcher has begun
	if _, err := nc.Write(pingMsg(2, "")); err != nil {
		t.Fatal(err)
	}
	readReplies(t, bufio.NewReader(nc), 1, 2)
	// Other tests run beside this one and open descriptors of their own,
	// so only the server's end of this connection is counted: its socket
	// and any duplicate of it share one inode.
	if n := descriptorsOf(t, serverSocketInode(t, nc)); n != 1 {
		t.Fatalf("%d descriptors on the server's socket, want 1: the watcher's handle leaked", n)
	}
}

// serverSocketInode finds, in /proc/net/tcp, the inode of the server's
// end of nc: the socket whose remote address is nc's local address.
func serverSocketInode(t *testing.T, nc net.Conn) string {
	t.Helper()
	local := nc.LocalAddr().(*net.TCPAddr)
	remote := nc.RemoteAddr().(*net.TCPAddr)
	ip4 := local.IP.To4()
	if ip4 == nil {
		t.Skip("not an IPv4 connection")
	}
	hexAddr := func(ip net.IP, port int) string {
		return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], port)
	}
	peer := hexAddr(ip4, local.Port)
	self := hexAddr(remote.IP.To4(), remote.Port)
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Skip("no /proc/net/tcp")
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 9 && f[1] == self && f[2] == peer {
			return f[9]
		}
	}
	t.Fatalf("no socket %s -> %s in /proc/net/tcp", self, peer)
	return ""
}

// descriptorsOf counts the process's descriptors open on socket inode.
func descriptorsOf(t *testing.T, inode string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == "socket:["+inode+"]" {
			n++
		}
	}
	return n
}
