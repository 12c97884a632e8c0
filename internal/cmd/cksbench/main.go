// Command cksbench runs the provider's benchmarks, prints a table of figures
// with their same-run ratios and targets, and writes docs/benchmarks.md.
//
//	go run ./internal/cmd/cksbench [-out docs/benchmarks.md] [-only jobwait,latency,fleet,plan,resize,scale,fleetscale]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/bench"
)

// benchmark is one part of the run.
type benchmark struct {
	name string
	run  func(ctx context.Context) (bench.Section, error)
}

var benchmarks = []benchmark{
	{"jobwait", func(ctx context.Context) (bench.Section, error) {
		r, err := bench.RunJobWait(ctx, bench.JobWaitOptions{})
		return r.Section(), err
	}},
	{"latency", func(ctx context.Context) (bench.Section, error) {
		r, err := bench.RunDriftLatency(ctx, bench.DriftLatencyOptions{})
		return r.Section(), err
	}},
	{"fleet", func(ctx context.Context) (bench.Section, error) {
		r, err := bench.RunFleetDrift(ctx, bench.FleetOptions{})
		return r.Section(), err
	}},
	{"plan", func(ctx context.Context) (bench.Section, error) {
		r, err := bench.RunWorkspacePlan(ctx, bench.WorkspacePlanOptions{})
		return r.Section(), err
	}},
	{"resize", func(ctx context.Context) (bench.Section, error) {
		r, err := bench.RunResize(ctx, bench.ResizeOptions{})
		return r.Section(), err
	}},
	{"scale", func(ctx context.Context) (bench.Section, error) {
		self, err := os.Executable()
		if err != nil {
			return bench.Section{}, err
		}
		// The simulator runs in a child process (this binary again), so
		// that only the checking side counts in CPU time and memory.
		r, err := bench.RunScale(ctx, bench.ScaleOptions{Source: bench.ChildProcessScenario(self, bench.ScaleChildArg)})
		return r.Section(), err
	}},
	{"fleetscale", func(ctx context.Context) (bench.Section, error) {
		self, err := os.Executable()
		if err != nil {
			return bench.Section{}, err
		}
		// As for scale: the simulator's 20,000 VMs live in a child process.
		// Last, because the clients of a thousand Kubernetes APIs stay in
		// this process's heap a while (client-go keeps each cluster's
		// transport), which the heap figures of a later benchmark would count.
		r, err := bench.RunFleetScale(ctx, bench.FleetScaleOptions{Source: bench.ChildProcessFleetScale(self, bench.FleetScaleChildArg)})
		return r.Section(), err
	}},
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == bench.ScaleChildArg {
		if err := bench.ServeScaleScenario(context.Background(), os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "cksbench scale scenario:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == bench.FleetScaleChildArg {
		if err := bench.ServeFleetScaleScenario(context.Background(), os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "cksbench fleet scale scenario:", err)
			os.Exit(1)
		}
		return
	}
	out := flag.String("out", "docs/benchmarks.md", "write the report here; empty skips it")
	only := flag.String("only", "", "comma-separated benchmarks to run (default all: "+names()+")")
	timeout := flag.Duration("timeout", 15*time.Minute, "stop the whole run after this long")
	flag.Parse()
	if err := run(*out, *only, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "cksbench:", err)
		os.Exit(1)
	}
}

func run(out, only string, timeout time.Duration) error {
	selected, err := selectBenchmarks(only)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rep := bench.Report{Machine: bench.DescribeMachine(), Started: time.Now()}
	for _, b := range selected {
		fmt.Fprintf(os.Stderr, "cksbench: running %s\n", b.name)
		start := time.Now()
		s, err := b.run(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		fmt.Fprintf(os.Stderr, "cksbench: %s done in %s\n", b.name, time.Since(start).Round(time.Millisecond))
		rep.Sections = append(rep.Sections, s)
	}
	rep.Wall = time.Since(rep.Started)
	fmt.Println()
	if err := bench.WriteTable(os.Stdout, rep.Figures()); err != nil {
		return err
	}
	if misses := rep.Misses(); len(misses) > 0 {
		fmt.Printf("\n%d target(s) missed; see the notes in %s.\n", len(misses), out)
	}
	if out == "" {
		return nil
	}
	var b strings.Builder
	if err := bench.WriteMarkdown(&b, rep); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nWrote %s (run took %s).\n", out, rep.Wall.Round(time.Second))
	return nil
}

func selectBenchmarks(only string) ([]benchmark, error) {
	if only == "" {
		return benchmarks, nil
	}
	var out []benchmark
	for name := range strings.SplitSeq(only, ",") {
		i := slices.IndexFunc(benchmarks, func(b benchmark) bool { return b.name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("unknown benchmark %q (have %s)", name, names())
		}
		out = append(out, benchmarks[i])
	}
	return out, nil
}

func names() string {
	n := make([]string, len(benchmarks))
	for i, b := range benchmarks {
		n[i] = b.name
	}
	return strings.Join(n, ",")
}
