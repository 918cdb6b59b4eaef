package procs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeSystem builds a /sys and a /proc in which the block device holding
// dir is a partition of a disk whose PCI function has the MSI vectors
// irqs, and /proc/interrupts holds interrupts (its lines after the
// header). affinity maps an interrupt to its effective_affinity_list.
func fakeSystem(t *testing.T, dir string, irqs []int, interrupts string, affinity map[int]string) (sys, proc string) {
	t.Helper()
	root := t.TempDir()
	sys, proc = filepath.Join(root, "sys"), filepath.Join(root, "proc")
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	pci := filepath.Join(sys, "devices", "pci0000:00", "0000:00:02.0")
	virtio := filepath.Join(pci, "virtio1")
	disk := filepath.Join(virtio, "block", "vda")
	part := filepath.Join(disk, "vda1")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(part, 0o755))
	must(os.MkdirAll(filepath.Join(pci, "msi_irqs"), 0o755))
	for _, n := range irqs {
		must(os.WriteFile(filepath.Join(pci, "msi_irqs", strconv.Itoa(n)), []byte("msix\n"), 0o644))
	}
	must(os.WriteFile(filepath.Join(part, "partition"), []byte("1\n"), 0o644))
	must(os.Symlink(virtio, filepath.Join(disk, "device")))
	must(os.MkdirAll(filepath.Join(sys, "dev", "block"), 0o755))
	dev := uint64(st.Dev)
	must(os.Symlink(part, filepath.Join(sys, "dev", "block", strconv.FormatUint(uint64(unix.Major(dev)), 10)+":"+strconv.FormatUint(uint64(unix.Minor(dev)), 10))))
	must(os.MkdirAll(proc, 0o755))
	must(os.WriteFile(filepath.Join(proc, "interrupts"), []byte("           CPU0       CPU1       CPU2       CPU3\n"+interrupts), 0o644))
	for n, list := range affinity {
		d := filepath.Join(proc, "irq", strconv.Itoa(n))
		must(os.MkdirAll(d, 0o755))
		must(os.WriteFile(filepath.Join(d, "effective_affinity_list"), []byte(list+"\n"), 0o644))
	}
	return sys, proc
}

// TestDiskCPU: the processor a disk's completions are routed to, found
// through the partition, the disk and its PCI function's vectors; none
// for a device with a completion queue per processor, or too few
// interrupts to say.
func TestDiskCPU(t *testing.T) {
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	cases := []struct {
		name       string
		irqs       []int
		interrupts string
		affinity   map[int]string
		want       int
		ok         bool
	}{
		{
			name: "one queue, routed to processor 1",
			irqs: []int{35, 36},
			interrupts: lines(
				" 35:          0          1          0          0  PCI-MSIX-0000:00:02.0   0-edge      virtio1-config",
				" 36:          0      12392          0          0  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0",
				" 38:       9999          0          0          0  PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0",
				"LOC:      69187      67665      1          1   Local timer interrupts"),
			affinity: map[int]string{35: "1", 36: "1"},
			want:     1, ok: true,
		},
		{
			name: "routed to processor 2 now, whatever the counts",
			irqs: []int{35, 36},
			interrupts: lines(
				" 36:          0      12392          7          0  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0"),
			affinity: map[int]string{36: "2"},
			want:     2, ok: true,
		},
		{
			name: "routing names several processors: where most landed",
			irqs: []int{36},
			interrupts: lines(
				" 36:        100          2       5000         40  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0"),
			affinity: map[int]string{36: "0-3"},
			want:     2, ok: true,
		},
		{
			name: "spread over processors, no routing to read",
			irqs: []int{36},
			interrupts: lines(
				" 36:       3000       3000       3000       3000  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0"),
		},
		{
			name: "a queue per processor",
			irqs: []int{40, 41, 42, 43, 44},
			interrupts: lines(
				" 40:          9          0          0          0  PCI-MSIX-0000:00:02.0   0-edge      nvme0q0",
				" 41:       5000          0          0          0  PCI-MSIX-0000:00:02.0   1-edge      nvme0q1",
				" 42:          0       4000          0          0  PCI-MSIX-0000:00:02.0   2-edge      nvme0q2",
				" 43:          0          0       4500          0  PCI-MSIX-0000:00:02.0   3-edge      nvme0q3",
				" 44:          0          0          0       3900  PCI-MSIX-0000:00:02.0   4-edge      nvme0q4"),
			affinity: map[int]string{41: "0", 42: "1", 43: "2", 44: "3"},
		},
		{
			name: "too few interrupts to say",
			irqs: []int{36},
			interrupts: lines(
				" 36:          0          5          0          0  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0"),
			affinity: map[int]string{36: "1"},
		},
		{
			name: "the device's vectors are not in /proc/interrupts",
			irqs: []int{50},
			interrupts: lines(
				" 36:          0      12392          0          0  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0"),
			affinity: map[int]string{36: "1"},
		},
		{
			name: "no vectors",
			interrupts: lines(
				" 36:          0      12392          0          0  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0"),
			affinity: map[int]string{36: "1"},
		},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sys, proc := fakeSystem(t, dir, c.irqs, c.interrupts, c.affinity)
			got, ok := diskCPU(sys, proc, dir)
			if ok != c.ok || ok && got != c.want {
				t.Fatalf("diskCPU = %d, %v; want %d, %v", got, ok, c.want, c.ok)
			}
		})
	}
	t.Run("a path that does not exist", func(t *testing.T) {
		if _, ok := diskCPU("/sys", "/proc", filepath.Join(dir, "missing")); ok {
			t.Fatal("diskCPU found a processor for a missing path")
		}
	})
}

// TestWholeDisk: a partition leads to its disk, a device-mapper device
// with one underlying partition to that partition's disk, one with two
// stays where it is.
func TestWholeDisk(t *testing.T) {
	sys := t.TempDir()
	disk := filepath.Join(sys, "devices", "pci0000:00", "0000:00:02.0", "virtio1", "block", "vda")
	for _, p := range []string{"vda1", "vda2"} {
		if err := os.MkdirAll(filepath.Join(disk, p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(disk, p, "partition"), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	class := filepath.Join(sys, "class", "block")
	virt := filepath.Join(sys, "devices", "virtual", "block")
	for _, d := range []string{class, filepath.Join(virt, "dm-0", "slaves"), filepath.Join(virt, "md0", "slaves")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{
		{filepath.Join(disk, "vda1"), filepath.Join(class, "vda1")},
		{filepath.Join(disk, "vda2"), filepath.Join(class, "vda2")},
		{filepath.Join(disk, "vda1"), filepath.Join(virt, "dm-0", "slaves", "vda1")},
		{filepath.Join(disk, "vda1"), filepath.Join(virt, "md0", "slaves", "vda1")},
		{filepath.Join(disk, "vda2"), filepath.Join(virt, "md0", "slaves", "vda2")},
	} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][2]string{
		{filepath.Join(disk, "vda1"), disk},
		{disk, disk},
		{filepath.Join(virt, "dm-0"), disk},
		{filepath.Join(virt, "md0"), filepath.Join(virt, "md0")},
	} {
		if got := wholeDisk(sys, c[0]); got != c[1] {
			t.Errorf("wholeDisk(%s) = %s, want %s", c[0], got, c[1])
		}
	}
}
