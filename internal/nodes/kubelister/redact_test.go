package kubelister

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	kubeconfig := []byte("users:\n- user:\n    token: abcdefgh12345678\n    client-key-data: 'S2V5RGF0YQ=='\n")
	msg := "yaml: cannot unmarshal !!str `abcdefg...` into int; saw abcdefgh12345678 and S2V5RGF0YQ== near \"x\""
	got := redact(msg, kubeconfig)
	for _, secret := range []string{"abcdefg", "S2V5RGF0YQ"} {
		if strings.Contains(got, secret) {
			t.Fatalf("redact left %q in %q", secret, got)
		}
	}
	if !strings.Contains(got, "yaml: cannot unmarshal !!str") {
		t.Fatalf("redact removed the explanation: %q", got)
	}
	if got := redact("yaml: line 1: did not find expected ',' or ']'", kubeconfig); got != "yaml: line 1: did not find expected ',' or ']'" {
		t.Fatalf("redact hid the punctuation of a syntax error: %q", got)
	}
}
