package main

import "fmt"

// version and commit are set by goreleaser through
// -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = ""
)

// versionLine is what `cksim version` prints: the version and, when the
// build recorded one, the commit.
func versionLine() string {
	if commit == "" {
		return "cksim " + version
	}
	return fmt.Sprintf("cksim %s (commit %s)", version, commit)
}
