// Package network runs `lode serve` as a child process and throws at it
// what a network can: connection floods beyond the open-file limit.
package network

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
	"github.com/lodedb/lode/test/testenv"
)

var addrRE = regexp.MustCompile(`lode started"? addr=(127\.0\.0\.1:\d+)`)

// acceptanceOnly skips t unless LODE_ACCEPTANCE is set (.ci/run sets it).
func acceptanceOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("LODE_ACCEPTANCE") == "" {
		testenv.Skip(t, testenv.GroupAcceptance, "acceptance test: set LODE_ACCEPTANCE=1 to run it")
	}
}

// lodeBinary returns the built cmd/lode.
func lodeBinary(t *testing.T) string {
	t.Helper()
	bin, err := testenv.LodeBinary()
	if err != nil {
		t.Fatalf("build lode: %v", err)
	}
	return bin
}

// startLimited starts `lode serve` with its open-file limit (soft and
// hard) set to nofile (0: inherited), and returns its address.
func startLimited(t *testing.T, nofile int, args ...string) (*exec.Cmd, string) {
	t.Helper()
	dir := t.TempDir()
	bin := lodeBinary(t)
	serve := append([]string{bin, "serve", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "db")}, args...)
	cmd := exec.Command(serve[0], serve[1:]...)
	if nofile > 0 {
		cmd = exec.Command("bash", append([]string{"-c", `ulimit -n "$0" && exec "$@"`, itoa(nofile)}, serve...)...)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() // our own child, by its PID
		cmd.Wait()
	})
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addrc <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a := <-addrc:
		return cmd, a
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}
	return nil, ""
}

func itoa(n int) string {
	b := []byte{}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

type pinger struct {
	nc net.Conn
	r  *bufio.Reader
	id int32
}

func dial(addr string) (*pinger, error) {
	nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &pinger{nc: nc, r: bufio.NewReader(nc)}, nil
}

func (p *pinger) ping(timeout time.Duration) error {
	p.id++
	cmd := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
	_ = p.nc.SetDeadline(time.Now().Add(timeout))
	if _, err := p.nc.Write(wire.AppendMsg(nil, p.id, 0, 0, cmd)); err != nil {
		return err
	}
	m, err := wire.ReadMessage(p.r)
	if err != nil {
		return err
	}
	msg, ok := m.(*wire.Msg)
	if !ok {
		return errors.New("not an OP_MSG reply")
	}
	body, err := msg.Merged()
	if err != nil {
		return err
	}
	if v, _ := body.Lookup("ok").AsFloat64OK(); v != 1 {
		return errors.New("ping failed: " + body.String())
	}
	return nil
}

// TestConnectionFloodBeyondFileLimit: with 256 open files and no
// connection cap below that, 1,000 connection attempts run the server out
// of descriptors. It must keep running, answer an established client's
// pings throughout, and accept new connections once the flood closes.
func TestConnectionFloodBeyondFileLimit(t *testing.T) {
	cmd, addr := startLimited(t, 256, "--max-connections", "100000")
	control, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer control.nc.Close()
	if err := control.ping(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for i := 0; i < 1000; i++ {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			continue // the listen backlog may be full: an attempt all the same
		}
		flood = append(flood, c)
		if i%100 == 0 {
			if err := control.ping(2 * time.Second); err != nil {
				t.Fatalf("control ping after %d connection attempts: %v", i, err)
			}
		}
	}
	for i := 0; i < 20; i++ { // two seconds of pings under the flood
		if err := control.ping(2 * time.Second); err != nil {
			t.Fatalf("control ping during the flood: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range flood {
		c.Close()
	}
	flood = nil
	deadline := time.Now().Add(20 * time.Second)
	for {
		p, err := dial(addr)
		if err == nil {
			err = p.ping(2 * time.Second)
			p.nc.Close()
			if err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new connection served after the flood closed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := control.ping(2 * time.Second); err != nil {
		t.Fatalf("control ping after the flood: %v", err)
	}
	if cmd.ProcessState != nil {
		t.Fatal("the server exited")
	}
}
