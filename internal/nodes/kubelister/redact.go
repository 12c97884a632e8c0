package kubelister

import (
	"regexp"
	"strings"
)

// quoted matches the spans YAML and JSON decoders quote when they echo input,
// e.g. "cannot unmarshal !!str `abcdefg...`". Single quotes are left alone:
// decoders use them for the punctuation a syntax error names, like ',' or ']'.
var quoted = regexp.MustCompile("`[^`]*`|\"[^\"]*\"")

// minSecretLen is the shortest kubeconfig value treated as possibly secret.
const minSecretLen = 8

// redact removes from msg anything a decoder may have copied from the
// kubeconfig: quoted spans, and any kubeconfig value of minSecretLen bytes or more.
func redact(msg string, kubeconfig []byte) string {
	msg = quoted.ReplaceAllString(msg, "[redacted]")
	for _, field := range strings.FieldsFunc(string(kubeconfig), isSeparator) {
		if len(field) >= minSecretLen && strings.Contains(msg, field) {
			msg = strings.ReplaceAll(msg, field, "[redacted]")
		}
	}
	return msg
}

func isSeparator(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', ',', '{', '}', '[', ']':
		return true
	}
	return false
}
