package kubectlout

import (
	"regexp"
	"strconv"
	"strings"
)

// klogLine matches klog's header, e.g. `E1129 10:01:02.123456   4242 memcache.go:265] ...`,
// which kubectl writes when discovery or the cache misbehaves.
var klogLine = regexp.MustCompile(`^[IWEF]\d{4}\s+\d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+[^\s\]]+:\d+\]`)

// splitLines splits on LF and drops the CR of CRLF endings plus surrounding blanks.
func splitLines(out string) []string {
	raw := strings.Split(out, "\n")
	lines := make([]string, len(raw))
	for i, l := range raw {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// isNoise reports whether a trimmed line is something kubectl (or a shell)
// prints besides the data: blank lines, warnings, klog lines and the empty-list notice.
func isNoise(line string) bool {
	switch {
	case line == "":
		return true
	case strings.HasPrefix(line, "Warning:"):
		return true
	case strings.HasPrefix(line, "No resources found"):
		return true
	default:
		return klogLine.MatchString(line)
	}
}

// isNodeName reports whether s is a valid node name: Kubernetes validates node
// names as DNS subdomains (lowercase alphanumerics, '-' and '.', at most 253
// characters, starting and ending alphanumeric). Checking it lets the parsers
// reject error text that happens to land where a name is expected.
func isNodeName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		if alnum {
			continue
		}
		if (c != '-' && c != '.') || i == 0 || i == len(s)-1 {
			return false
		}
	}
	return true
}

// quoteShort quotes text for an error message, cut so that a huge line
// cannot flood diagnostics.
func quoteShort(s string) string {
	const limit = 80
	if len(s) > limit {
		return strconv.Quote(strings.ToValidUTF8(s[:limit], "?")) + "..."
	}
	return strconv.Quote(s)
}
