package bench

import (
	"fmt"
	"math"
	"time"
)

// Verdict says whether a figure meets its target.
type Verdict int

const (
	// Info is a figure without a target.
	Info Verdict = iota
	// Pass means the target is met.
	Pass
	// Miss means the target is missed.
	Miss
)

// String is the verdict as the table prints it.
func (v Verdict) String() string {
	switch v {
	case Pass:
		return "PASS"
	case Miss:
		return "MISS"
	default:
		return "info"
	}
}

// verdictOf is Pass when ok holds, else Miss.
func verdictOf(ok bool) Verdict {
	if ok {
		return Pass
	}
	return Miss
}

// Figure is one row of the report: a measurement, the reference it is
// compared with in the same run, their ratio and the target.
type Figure struct {
	// Group names the benchmark, e.g. "Job wait".
	Group string
	// Name is what was measured, e.g. "median overhead".
	Name string
	// Value is the measurement, formatted with its unit.
	Value string
	// Reference is what Value is compared with, formatted, e.g.
	// "cloudstack-go 1.25 s"; empty when there is none.
	Reference string
	// Ratio is Value divided by Reference; NaN when there is none.
	Ratio float64
	// Target is the goal, e.g. "≤ 0.5× cloudstack-go"; empty for Info.
	Target string
	// Verdict is Pass or Miss against Target, or Info.
	Verdict Verdict
}

// RatioText formats Ratio, "-" when there is none.
func (f Figure) RatioText() string {
	if math.IsNaN(f.Ratio) || math.IsInf(f.Ratio, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f×", f.Ratio)
}

// ratio divides safely: NaN when the reference is zero.
func ratio(value, reference float64) float64 {
	if reference == 0 {
		return math.NaN()
	}
	return value / reference
}

// seconds formats a duration in seconds with millisecond precision.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f s", d.Seconds())
}

// mebibytes formats a byte count in MiB.
func mebibytes(b uint64) string {
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// missNotes are the notes that name each figure missing its target.
func missNotes(figs []Figure) []string {
	var out []string
	for _, f := range figs {
		if f.Verdict == Miss {
			out = append(out, fmt.Sprintf("MISS %q: %s (target %s).", f.Name, f.Value, f.Target))
		}
	}
	return out
}
