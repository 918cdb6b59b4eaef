package sim

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar draws a one-line progress bar on a terminal, redrawn at most ten
// times a second. On anything else (a log file, a pipe) it writes a plain
// line every five seconds instead, with no carriage returns.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	last  time.Time
	tty   bool
}

// NewBar returns a progress bar labelled label writing to w (nil: none).
func NewBar(w io.Writer, label string) *Bar {
	return &Bar{w: w, label: label, tty: isTerminal(w)}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Set draws done out of total; it always draws the final state.
func (b *Bar) Set(done, total int) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	every := 100 * time.Millisecond
	if !b.tty {
		every = 5 * time.Second
	}
	if done < total && !b.last.IsZero() && time.Since(b.last) < every {
		return
	}
	b.last = time.Now()
	const width = 30
	frac := 1.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	n := int(frac * width)
	if !b.tty {
		fmt.Fprintf(b.w, "%s: %3.0f%% %d/%d\n", b.label, frac*100, done, total)
		return
	}
	fmt.Fprintf(b.w, "\r%-28s [%s%s] %3.0f%% %d/%d", b.label, strings.Repeat("#", n), strings.Repeat(" ", width-n), frac*100, done, total)
	if done >= total {
		fmt.Fprintln(b.w)
	}
}
