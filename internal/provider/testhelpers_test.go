package provider

import (
	"regexp"
	"strings"
	"testing"
)

// Helpers shared by the provider's acceptance tests.

// errorFragments matches an error that contains the fragments in order,
// whatever line wrapping Terraform applied to them.
func errorFragments(fragments ...string) *regexp.Regexp {
	parts := make([]string, 0, len(fragments))
	for _, f := range fragments {
		words := strings.Fields(f)
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		parts = append(parts, strings.Join(words, `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
}

// isolateProviderEnv makes the provider see no CLOUDSTACK_* variables and no
// ~/.cmk/config, whatever the machine running the tests has.
func isolateProviderEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{envAPIURL, envAPIKey, envSecretKey, envConfig, envProfile} {
		t.Setenv(v, "")
	}
	t.Setenv("HOME", t.TempDir())
}
