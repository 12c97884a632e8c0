package endpoints

import (
	"fmt"
	"strings"
)

// grep supports the options CKS pipes kubectl output through: -w, -v, -i,
// -c and -q, with a fixed-string pattern. Exit status 1 means no match.
func grep(args []string, stdin string) result {
	var word, invert, ignoreCase, count, quiet bool
	var pattern *string
	for _, a := range args {
		if pattern == nil && len(a) > 1 && strings.HasPrefix(a, "-") {
			for _, opt := range a[1:] {
				switch opt {
				case 'w':
					word = true
				case 'v':
					invert = true
				case 'i':
					ignoreCase = true
				case 'c':
					count = true
				case 'q':
					quiet = true
				case 'F', 'E':
					// Patterns are matched as fixed strings either way.
				default:
					return result{stderr: fmt.Sprintf("grep: invalid option -- '%c'\n", opt), status: 2}
				}
			}
			continue
		}
		if pattern == nil {
			pattern = &a
		}
	}
	if pattern == nil {
		return result{stderr: "Usage: grep [OPTION]... PATTERNS [FILE]...\n", status: 2}
	}
	needle := *pattern
	if ignoreCase {
		needle = strings.ToLower(needle)
	}
	var out strings.Builder
	matched := 0
	for _, line := range lines(stdin) {
		hay := line
		if ignoreCase {
			hay = strings.ToLower(line)
		}
		if containsMatch(hay, needle, word) == invert {
			continue
		}
		matched++
		if !count && !quiet {
			out.WriteString(line + "\n")
		}
	}
	if count && !quiet {
		fmt.Fprintf(&out, "%d\n", matched)
	}
	status := exitOK
	if matched == 0 {
		status = exitFailure
	}
	return result{stdout: out.String(), status: status}
}

// containsMatch reports whether needle occurs in hay, as a whole word when
// word is set (bounded by characters other than letters, digits and '_').
func containsMatch(hay, needle string, word bool) bool {
	if !word {
		return strings.Contains(hay, needle)
	}
	if needle == "" {
		return false
	}
	for from := 0; from <= len(hay)-len(needle); {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(needle)
		if (start == 0 || !isWordByte(hay[start-1])) && (end == len(hay) || !isWordByte(hay[end])) {
			return true
		}
		from = start + 1
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// wc supports only -l, the way CKS counts Ready nodes.
func wc(args []string, stdin string) result {
	if len(args) != 1 || args[0] != "-l" {
		return result{stderr: "wc: only 'wc -l' is available on this node\n", status: exitFailure}
	}
	return result{stdout: fmt.Sprintf("%d\n", strings.Count(stdin, "\n"))}
}

// lines splits text into lines without the trailing empty one.
func lines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
