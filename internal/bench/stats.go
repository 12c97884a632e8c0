package bench

import (
	"slices"
	"time"
)

// median is the median of xs; the mean of the middle two for an even count
// (an integer mean for durations), zero for none.
func median[T time.Duration | float64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}

// positiveOr is v, or def when v is zero or negative: the default of an
// option left unset.
func positiveOr[T time.Duration | int](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// mean is the arithmetic mean of xs, 0 for none.
func mean(xs []time.Duration) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	var sum time.Duration
	for _, x := range xs {
		sum += x
	}
	return sum / time.Duration(len(xs))
}
