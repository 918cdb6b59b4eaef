// Command lode runs the Lode document database and its tools.
//
//	lode serve [--addr 127.0.0.1:27017] [--dir ./lode-data] [--log-level info]
//	lode version
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = runServe(os.Args[2:])
	case "sim":
		err = runSim(os.Args[2:])
	case "eventlog":
		err = runEventlog(os.Args[2:])
	case "bench":
		err = runBench(os.Args[2:])
	case "version", "--version":
		fmt.Printf("lode %s (MongoDB %s compatible)\n", version, mongoVersion())
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "lode: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lode:", err)
		os.Exit(1)
	}
}

const version = "0.1.0"

func usage() {
	fmt.Fprint(os.Stderr, `usage: lode <command> [flags]

commands:
  serve     run the server (MongoDB wire protocol)
  bench     recent [--docs N]: seed 000's recent-n benchmark (SORT_MERGE vs SORT)
  eventlog  import FILE [--uri URI]: load an Apache combined access log
  sim       run the schema simulator (lode sim help)
  version   print the version
`)
}
