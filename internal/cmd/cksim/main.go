// Command cksim runs the CloudStack CKS simulator, or drives a running one
// through its admin API.
//
//	cksim [-listen 127.0.0.1:8080] [-profile 4.22.1.1|4.22.0.0|pr14165] [-job-duration 300ms] [-key-out FILE]
//	      [-scanner-interval 30s] [-no-scanner] [-list-order ""|reversed|shuffled] [-seed N] [-v]
//	cksim admin -url <admin_url> <op> [key=value ...]
//	cksim version
//
// On start it prints one JSON line (simulator.Info) to stdout and runs until
// SIGINT or SIGTERM.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "admin" {
		return runAdmin(args[1:], stdout, stderr)
	}
	if len(args) == 1 && (args[0] == "version" || args[0] == "-version") {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	if err := runServer(args, stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "cksim:", err)
		return 1
	}
	return 0
}
