package procs

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The processor that completes a disk's requests.
//
// A j:true commit waits twice on the disk holding the log: for the
// write, then for the flush that makes it durable. Each wait ends with
// the disk's completion interrupt, on the processor the interrupt is
// routed to, which then wakes the waiting thread. When that thread is
// kept on another processor the wake-up crosses processors (an
// inter-processor interrupt, dear on a virtual machine); on the same one
// it does not. A 4 KiB O_DSYNC write cost 25 µs of CPU on the processor
// taking this guest's disk interrupts and 36–43 on the other, and a lone
// client's j:true insert about 8 µs less server CPU with Lode's threads
// there (docs/benchmarks.md, "Lode's threads on the disk's processor").
//
// A device with one completion queue (a virtio disk, most SATA and SCSI
// disks) has its interrupts on one processor; one with a queue per
// processor (NVMe) completes a request on the processor that sent it,
// so no processor is better than the one the server runs on.

// diskCPU is the processor the completions of the block device holding
// path are routed to, read from sys (/sys) and proc (/proc): the
// effective affinity of the device's busiest interrupt, or the processor
// that took three quarters of its count. False when there is no such
// device (tmpfs, overlay), its interrupts are not found, or no one
// interrupt takes three quarters of the device's (a queue per
// processor).
func diskCPU(sys, proc, path string) (int, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, false
	}
	dev := uint64(st.Dev)
	block, err := filepath.EvalSymlinks(filepath.Join(sys, "dev", "block", strconv.FormatUint(uint64(unix.Major(dev)), 10)+":"+strconv.FormatUint(uint64(unix.Minor(dev)), 10)))
	if err != nil {
		return 0, false
	}
	block = wholeDisk(sys, block)
	irqs := deviceIRQs(sys, filepath.Join(block, "device"))
	if len(irqs) == 0 {
		return 0, false
	}
	counts := interruptCounts(filepath.Join(proc, "interrupts"), irqs)
	// The device's busiest interrupt must take most of them: one
	// completion queue.
	busiest, all := -1, uint64(0)
	totals := map[int]uint64{}
	for irq, per := range counts {
		totals[irq] = sum(per)
		all += totals[irq]
		if busiest < 0 || totals[irq] > totals[busiest] || totals[irq] == totals[busiest] && irq < busiest {
			busiest = irq
		}
	}
	if busiest < 0 || all < minDiskInterrupts || totals[busiest]*4 < all*3 {
		return 0, false
	}
	// Where it is routed now; where it landed when the routing names
	// several processors.
	if b, err := os.ReadFile(filepath.Join(proc, "irq", strconv.Itoa(busiest), "effective_affinity_list")); err == nil {
		if cpu, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return cpu, true
		}
	}
	per := counts[busiest]
	best := -1
	for cpu, n := range per {
		if best < 0 || n > per[best] || n == per[best] && cpu < best {
			best = cpu
		}
	}
	if per[best]*4 < sum(per)*3 {
		return 0, false
	}
	return best, true
}

func sum(per map[int]uint64) uint64 {
	var t uint64
	for _, n := range per {
		t += n
	}
	return t
}

// minDiskInterrupts: fewer say nothing about where the next will land.
const minDiskInterrupts = 16

// wholeDisk follows a partition to its disk and a device-mapper or md
// device with one underlying device to it (a few levels at most).
func wholeDisk(sys, block string) string {
	for range 4 {
		if _, err := os.Stat(filepath.Join(block, "partition")); err == nil {
			block = filepath.Dir(block)
			continue
		}
		under, err := os.ReadDir(filepath.Join(block, "slaves"))
		if err != nil || len(under) != 1 {
			return block
		}
		next, err := filepath.EvalSymlinks(filepath.Join(sys, "class", "block", under[0].Name()))
		if err != nil {
			return block
		}
		block = next
	}
	return block
}

// deviceIRQs lists the interrupts of the device at dev or of the nearest
// device above it that has any (a virtio disk's are its PCI function's):
// its MSI vectors, else its one legacy line.
func deviceIRQs(sys, dev string) map[int]bool {
	dir, err := filepath.EvalSymlinks(dev)
	if err != nil {
		return nil
	}
	top := filepath.Join(sys, "devices")
	for strings.HasPrefix(dir, top+string(filepath.Separator)) {
		out := map[int]bool{}
		if ents, err := os.ReadDir(filepath.Join(dir, "msi_irqs")); err == nil {
			for _, e := range ents {
				if n, err := strconv.Atoi(e.Name()); err == nil {
					out[n] = true
				}
			}
		}
		if len(out) == 0 {
			if b, err := os.ReadFile(filepath.Join(dir, "irq")); err == nil {
				if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
					out[n] = true
				}
			}
		}
		if len(out) > 0 {
			return out
		}
		dir = filepath.Dir(dir)
	}
	return nil
}

// interruptCounts reads from /proc/interrupts, for each interrupt of
// irqs, its count on each processor.
func interruptCounts(name string, irqs map[int]bool) map[int]map[int]uint64 {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var cpus []int
	if sc.Scan() {
		for _, h := range strings.Fields(sc.Text()) {
			if n, err := strconv.Atoi(strings.TrimPrefix(h, "CPU")); err == nil && strings.HasPrefix(h, "CPU") {
				cpus = append(cpus, n)
			}
		}
	}
	out := map[int]map[int]uint64{}
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 1+len(cpus) {
			continue
		}
		irq, err := strconv.Atoi(strings.TrimSuffix(fields[0], ":"))
		if err != nil || !irqs[irq] {
			continue
		}
		per := map[int]uint64{}
		for i, cpu := range cpus {
			if n, err := strconv.ParseUint(fields[1+i], 10, 64); err == nil {
				per[cpu] = n
			}
		}
		out[irq] = per
	}
	return out
}
