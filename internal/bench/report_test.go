package bench

import (
	"math"
	"strings"
	"testing"
	"time"
)

func sampleReport() Report {
	return Report{
		Machine: Machine{CPUs: 2, CPUModel: "Test CPU", MemTotal: 4 << 30, GoVersion: "go1.26.8", OS: "linux/amd64", Kernel: "6.1", LoadAvg: "0.50 0.40 0.30"},
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Wall:    90 * time.Second,
		Sections: []Section{
			{
				Title:  "Job wait overhead",
				Method: "How it was measured.",
				Figures: []Figure{
					{Group: "Job wait", Name: "1.5 s job: overhead", Value: "0.880 s", Reference: "cloudstack-go 1.503 s", Ratio: 0.587},
					{Group: "Job wait", Name: "median overhead", Value: "0.642 s", Reference: "cloudstack-go 1.256 s", Ratio: 0.511,
						Target: "ratio ≤ 0.50", Verdict: Miss},
				},
				Notes: []string{"Why it missed."},
			},
			{
				Title: "Scale",
				Figures: []Figure{
					{Group: "Scale", Name: "peak heap | live", Value: "12.0 MiB", Ratio: math.NaN(), Target: "< 100 MiB", Verdict: Pass},
				},
			},
		},
	}
}

func TestWriteTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := WriteTable(&b, sampleReport().Figures()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("table has %d lines, want a header and 3 rows:\n%s", len(lines), b.String())
	}
	if !strings.HasPrefix(lines[0], "BENCHMARK") || !strings.Contains(lines[0], "RESULT") {
		t.Errorf("header = %q", lines[0])
	}
	for i, want := range [][]string{
		{"1.5 s job: overhead", "0.59×", "info"},
		{"median overhead", "0.51×", "ratio ≤ 0.50", "MISS"},
		{"peak heap | live", "12.0 MiB", " - ", "PASS"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("row %d %q lacks %q", i+1, lines[i+1], w)
			}
		}
	}
	// Columns line up: RESULT starts at the same rune column on every line.
	col := strings.Index(lines[0], "RESULT")
	for _, l := range lines[1:] {
		r := []rune(l)
		if len(r) < col || strings.TrimSpace(string(r[col:])) == "" || r[col-1] != ' ' {
			t.Errorf("row %q is not aligned with the RESULT column %d", l, col)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := WriteMarkdown(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"# Benchmarks\n",
		"- CPUs (nproc): 2\n", "- CPU model: Test CPU\n", "- Memory: 4.0 GiB\n", "- Go: go1.26.8\n", "- OS: linux/amd64 6.1\n", "- Load average at start (1, 5, 15 min): 0.50 0.40 0.30\n",
		"- Run started: 2026-01-02T03:04:05Z, took 1m30s\n",
		"| Job wait | median overhead | 0.642 s | cloudstack-go 1.256 s | 0.51× | ratio ≤ 0.50 | MISS |\n",
		`| Scale | peak heap \| live | 12.0 MiB | - | - | < 100 MiB | PASS |`,
		"Missed targets: Job wait / median overhead (0.642 s, target ratio ≤ 0.50).",
		"## Job wait overhead\n\nHow it was measured.\n\n",
		"- Why it missed.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// The summary lists only the figures that have a target.
	summary := md[strings.Index(md, "## Summary"):strings.Index(md, "## Job wait overhead")]
	if strings.Contains(summary, "1.5 s job") {
		t.Errorf("the summary lists an informational figure:\n%s", summary)
	}
	if n := strings.Count(md, "1.5 s job: overhead"); n != 1 {
		t.Errorf("the informational figure appears %d times, want once (in its section)", n)
	}
}

func TestReportWithoutMisses(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	r.Sections = r.Sections[1:]
	var b strings.Builder
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Every target was met in this run.") || strings.Contains(b.String(), "Missed targets") {
		t.Errorf("a report without misses says otherwise:\n%s", b.String())
	}
	if len(r.Misses()) != 0 || len(r.Targets()) != 1 {
		t.Errorf("Misses = %v, Targets = %v", r.Misses(), r.Targets())
	}
}

func TestFigureHelpers(t *testing.T) {
	t.Parallel()
	if got := (Figure{Ratio: math.NaN()}).RatioText(); got != "-" {
		t.Errorf("NaN ratio = %q", got)
	}
	if got := (Figure{Ratio: ratio(3, 0)}).RatioText(); got != "-" {
		t.Errorf("ratio by zero = %q", got)
	}
	if got := (Figure{Ratio: ratio(1, 4)}).RatioText(); got != "0.25×" {
		t.Errorf("1/4 = %q", got)
	}
	if verdictOf(true) != Pass || verdictOf(false) != Miss || Info.String() != "info" {
		t.Error("verdicts")
	}
	if got := seconds(1500 * time.Millisecond); got != "1.500 s" {
		t.Errorf("seconds = %q", got)
	}
	if got := mebibytes(3 << 19); got != "1.5 MiB" {
		t.Errorf("mebibytes = %q", got)
	}
	if got := jobLabel(1500 * time.Millisecond); got != "1.5 s" {
		t.Errorf("jobLabel = %q", got)
	}
}

func TestMedians(t *testing.T) {
	t.Parallel()
	if got := median([]time.Duration{3, 1, 2}); got != 2 {
		t.Errorf("odd = %v", got)
	}
	if got := median([]time.Duration{4, 1, 3, 2}); got != 2 {
		t.Errorf("even = %v (integer mean of 2 and 3)", got)
	}
	if got := median[time.Duration](nil); got != 0 {
		t.Errorf("empty = %v", got)
	}
	in := []float64{5, 1, 4, 2}
	if got := median(in); got != 3 {
		t.Errorf("float even = %v", got)
	}
	if in[0] != 5 {
		t.Error("median sorted its input in place")
	}
}
