package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// setUsage makes fs's --help print synopsis, then its flags as they are
// typed (--name, not Go's -name), each with its help and default.
func setUsage(fs *flag.FlagSet, synopsis string) {
	fs.Usage = func() { writeUsage(fs.Output(), fs, synopsis) }
}

func writeUsage(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fmt.Fprintf(w, "usage: %s\n\nflags:\n", synopsis)
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
		fmt.Fprintf(w, "      %s", strings.ReplaceAll(help, "\n", "\n      "))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}
