package provider

import (
	"testing"
)

// Helpers shared by the provider's acceptance tests.

// isolateProviderEnv makes the provider see no CLOUDSTACK_* variables and no
// ~/.cmk/config, whatever the machine running the tests has.
func isolateProviderEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{envAPIURL, envAPIKey, envSecretKey, envConfig, envProfile} {
		t.Setenv(v, "")
	}
	t.Setenv("HOME", t.TempDir())
}
