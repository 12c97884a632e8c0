package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Section is one benchmark's part of the report.
type Section struct {
	// Title names the benchmark.
	Title string
	// Method says in one or two sentences what was measured and how.
	Method string
	// Figures are the rows of the table.
	Figures []Figure
	// Notes explain missed targets or anything unusual in this run.
	Notes []string
}

// Report is a whole run of the benchmarks.
type Report struct {
	Machine  Machine
	Started  time.Time
	Wall     time.Duration
	Sections []Section
}

// Figures returns every figure of every section, in order.
func (r Report) Figures() []Figure {
	var out []Figure
	for _, s := range r.Sections {
		out = append(out, s.Figures...)
	}
	return out
}

// Targets returns the figures that have a target (not Info).
func (r Report) Targets() []Figure {
	var out []Figure
	for _, f := range r.Figures() {
		if f.Verdict != Info {
			out = append(out, f)
		}
	}
	return out
}

// Misses returns the figures whose target was missed.
func (r Report) Misses() []Figure {
	var out []Figure
	for _, f := range r.Figures() {
		if f.Verdict == Miss {
			out = append(out, f)
		}
	}
	return out
}

// WriteTable prints the figures as an aligned plain-text table.
func WriteTable(w io.Writer, figs []Figure) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "BENCHMARK\tFIGURE\tVALUE\tREFERENCE (same run)\tRATIO\tTARGET\tRESULT")
	for _, f := range figs {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			f.Group, f.Name, f.Value, orDash(f.Reference), f.RatioText(), orDash(f.Target), f.Verdict)
	}
	return tw.Flush()
}

// WriteMarkdown writes the report as docs/benchmarks.md holds it.
func WriteMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Latest results of `make bench` (`go run ./internal/cmd/cksbench`). The runner rewrites this file. ")
	b.WriteString("Each figure is compared with a reference measured in the same run; figures are never asserted in tests ")
	b.WriteString("because the machine is noisy.\n\n")

	b.WriteString("## Machine\n\n")
	for _, kv := range r.Machine.Rows() {
		fmt.Fprintf(&b, "- %s: %s\n", kv[0], kv[1])
	}
	fmt.Fprintf(&b, "- Run started: %s, took %s\n\n", r.Started.UTC().Format(time.RFC3339), r.Wall.Round(time.Second))

	b.WriteString("## Summary\n\n")
	b.WriteString("The figures that have a target; every figure is in the sections below.\n\n")
	writeMarkdownTable(&b, r.Targets())
	if misses := r.Misses(); len(misses) > 0 {
		b.WriteString("\nMissed targets: ")
		names := make([]string, 0, len(misses))
		for _, f := range misses {
			names = append(names, fmt.Sprintf("%s / %s (%s, target %s)", f.Group, f.Name, f.Value, f.Target))
		}
		b.WriteString(strings.Join(names, "; "))
		b.WriteString(". The sections below say why.\n")
	} else {
		b.WriteString("\nEvery target was met in this run.\n")
	}

	for _, s := range r.Sections {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Title)
		if s.Method != "" {
			b.WriteString(s.Method)
			b.WriteString("\n\n")
		}
		writeMarkdownTable(&b, s.Figures)
		if len(s.Notes) > 0 {
			b.WriteString("\n")
			for _, n := range s.Notes {
				fmt.Fprintf(&b, "- %s\n", n)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdownTable(b *strings.Builder, figs []Figure) {
	b.WriteString("| Benchmark | Figure | Value | Reference (same run) | Ratio | Target | Result |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, f := range figs {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(f.Group), mdCell(f.Name), mdCell(f.Value),
			mdCell(orDash(f.Reference)), f.RatioText(), mdCell(orDash(f.Target)), f.Verdict)
	}
}

// mdCell keeps a value from breaking the table.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
