package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestMain lets this test binary serve the scale scenarios as cksbench
// does, so that ChildProcessScenario and ChildProcessFleetScale are tested
// with a real child process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ScaleChildArg {
		if err := ServeScaleScenario(context.Background(), os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == FleetScaleChildArg {
		if err := ServeFleetScaleScenario(context.Background(), os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// osExecutable is this test binary.
func osExecutable() (string, error) { return os.Executable() }
