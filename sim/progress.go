package sim

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Bar draws a one-line progress bar on a terminal-like writer. It
// redraws at most ten times a second.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	last  time.Time
}

// NewBar returns a progress bar labelled label writing to w (nil: none).
func NewBar(w io.Writer, label string) *Bar { return &Bar{w: w, label: label} }

// Set draws done out of total; it always draws the final state.
func (b *Bar) Set(done, total int) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if done < total && time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.last = time.Now()
	const width = 30
	frac := 1.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	n := int(frac * width)
	fmt.Fprintf(b.w, "\r%-28s [%s%s] %3.0f%% %d/%d", b.label, strings.Repeat("#", n), strings.Repeat(" ", width-n), frac*100, done, total)
	if done >= total {
		fmt.Fprintln(b.w)
	}
}
