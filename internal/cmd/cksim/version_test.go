package main

import (
	"bytes"
	"testing"
)

// TestVersionSubcommand checks what `cksim version` prints with and without
// the commit a release build records.
func TestVersionSubcommand(t *testing.T) {
	savedVersion, savedCommit := version, commit
	t.Cleanup(func() { version, commit = savedVersion, savedCommit })
	for _, tc := range []struct{ version, commit, want string }{
		{"dev", "", "cksim dev\n"},
		{"0.1.0", "799d30a", "cksim 0.1.0 (commit 799d30a)\n"},
	} {
		version, commit = tc.version, tc.commit
		for _, arg := range []string{"version", "-version"} {
			var stdout, stderr bytes.Buffer
			if code := run([]string{arg}, &stdout, &stderr); code != 0 || stdout.String() != tc.want {
				t.Errorf("cksim %s with version %q, commit %q: exit %d, printed %q (stderr %q), want %q",
					arg, tc.version, tc.commit, code, stdout.String(), stderr.String(), tc.want)
			}
		}
	}
}
