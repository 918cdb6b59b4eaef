// Command lode runs the Lode document database and its tools.
//
//	lode serve [--addr 127.0.0.1:27017] [--dir ./lode-data] [--log-level info]
//	lode advise (--dir DIR | --uri URI) [--db DB] [--coll C] [--json] [--apply]
//	lode migrate --from URI|DIR --to URI [--verify] [--cutover] [--dry-run] [--ns-include P] ...
//	lode version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	reexecWithMallocTunables(os.Args[1:])
	os.Exit(run(os.Args[1:]))
}

// run runs one command line (without the program name) and returns the
// exit status: 0, 1 for a failed command, 2 for a bad command line.
// Asking for help (--help on any command) succeeds.
func run(args []string) int {
	if len(args) < 1 {
		usage()
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = runServe(args[1:])
	case "sim":
		err = runSim(args[1:])
	case "advise":
		err = runAdvise(args[1:], os.Stdout)
	case "eventlog":
		err = runEventlog(args[1:])
	case "bench":
		err = runBench(args[1:])
	case "migrate":
		err = runMigrate(args[1:])
	case "version", "--version":
		fmt.Printf("lode %s (MongoDB %s compatible)\n", version, mongoVersion())
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" {
			// lode help CMD is lode CMD --help.
			return run(append(append([]string{}, args[1:]...), "--help"))
		}
		usageTo(os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "lode: unknown command %q\n", args[0])
		usage()
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0 // the flag set printed its usage
	}
	var bad usageError
	if errors.As(err, &bad) {
		fmt.Fprintln(os.Stderr, "lode:", err)
		return 2 // a bad command line or configuration file (mongod's EXIT_BADOPTIONS)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lode:", err)
		return 1
	}
	return 0
}

const version = "0.1.0"

func usage() { usageTo(os.Stderr) }

func usageTo(w io.Writer) {
	fmt.Fprint(w, `usage: lode <command> [flags]   (lode help <command>, or lode <command> --help, for its flags)

commands:
  serve     run the server (MongoDB wire protocol)
  bench     recent [--docs N]: seed 000's recent-n benchmark (SORT_MERGE vs SORT)
  eventlog  import FILE [--uri URI]: load an Apache combined access log
  sim       run the schema simulator (lode sim help)
  advise    --dir DIR | --uri URI: propose indexes from the recorded query shapes
  migrate   --from URI --to URI: move a live deployment to another (docs/scale-out.md)
  version   print the version
`)
}
