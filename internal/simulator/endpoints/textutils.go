package endpoints

import (
	"fmt"
	"strings"
)

// grep supports the options CKS pipes kubectl output through: -w, -v, -i,
// -c and -q, with a fixed-string pattern. Exit status 1 means no match.
func grep(args []string, stdin string) result {
	var opts grepOptions
	var pattern *string
	for _, a := range args {
		if pattern == nil && len(a) > 1 && strings.HasPrefix(a, "-") {
			if bad, ok := opts.set(a[1:]); !ok {
				return result{stderr: fmt.Sprintf("grep: invalid option -- '%c'\n", bad), status: 2}
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
	selected := opts.selectLines(stdin, *pattern)
	var out strings.Builder
	if !opts.count && !opts.quiet {
		for _, line := range selected {
			out.WriteString(line + "\n")
		}
	}
	if opts.count && !opts.quiet {
		fmt.Fprintf(&out, "%d\n", len(selected))
	}
	status := exitOK
	if len(selected) == 0 {
		status = exitFailure
	}
	return result{stdout: out.String(), status: status}
}

// grepOptions are grep's flags.
type grepOptions struct {
	word, invert, ignoreCase, count, quiet bool
}

// set sets the flags of one option argument ("-wv" gives "wv"); at an
// unknown flag it stops and returns it with ok false.
func (o *grepOptions) set(flags string) (bad rune, ok bool) {
	for _, opt := range flags {
		switch opt {
		case 'w':
			o.word = true
		case 'v':
			o.invert = true
		case 'i':
			o.ignoreCase = true
		case 'c':
			o.count = true
		case 'q':
			o.quiet = true
		case 'F', 'E':
			// Patterns are matched as fixed strings either way.
		default:
			return opt, false
		}
	}
	return 0, true
}

// selectLines returns the lines of text that match the pattern, or with -v
// those that do not.
func (o grepOptions) selectLines(text, pattern string) []string {
	needle := pattern
	if o.ignoreCase {
		needle = strings.ToLower(needle)
	}
	var selected []string
	for _, line := range lines(text) {
		hay := line
		if o.ignoreCase {
			hay = strings.ToLower(line)
		}
		if containsMatch(hay, needle, o.word) != o.invert {
			selected = append(selected, line)
		}
	}
	return selected
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
