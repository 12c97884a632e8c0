package testutil

import (
	"slices"
	"testing"
)

// AssertKinds fails the test unless got are the wanted finding kinds, in
// order, and the result is in sync exactly when there are none. It takes
// the kinds, not a drift.Result, so that package drift's own tests can use
// it without an import cycle; detail is printed with a failure.
func AssertKinds(t testing.TB, got []string, inSync bool, detail string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v\n%s", got, want, detail)
	}
	if inSync != (len(want) == 0) {
		t.Fatalf("InSync = %v with findings %v", inSync, want)
	}
}
