package endpoints

import (
	"errors"
	"strings"
)

// result is what a command leaves behind: its two streams and exit status.
type result struct {
	stdout string
	stderr string
	status int
}

// Exit statuses bash uses.
const (
	exitOK       = 0
	exitFailure  = 1
	exitSyntax   = 2
	exitNotFound = 127
)

// run interprets command like bash on the target node would, for the few
// programs a CKS node is asked to run: kubectl, optionally under sudo and
// piped through grep or wc.
func (m *Manager) run(t Target, command string) result {
	stages, err := splitPipeline(command)
	if err != nil {
		return result{stderr: "bash: " + err.Error() + "\n", status: exitSyntax}
	}
	var res result
	var stderr strings.Builder
	for _, words := range stages {
		res = m.runStage(t, words, res.stdout)
		stderr.WriteString(res.stderr)
	}
	res.stderr = stderr.String()
	return res
}

func (m *Manager) runStage(t Target, words []string, stdin string) result {
	words = stripSudo(words)
	if len(words) == 0 {
		return result{}
	}
	switch program, args := words[0], words[1:]; program {
	case "kubectl", "/opt/bin/kubectl":
		return m.kubectl(t, args)
	case "grep", "/usr/bin/grep", "/bin/grep":
		return grep(args, stdin)
	case "wc", "/usr/bin/wc":
		return wc(args, stdin)
	default:
		return result{stderr: "bash: " + program + ": command not found\n", status: exitNotFound}
	}
}

// stripSudo drops a leading sudo and its options: cloud has passwordless
// sudo, so the command runs the same either way.
func stripSudo(words []string) []string {
	if len(words) == 0 || words[0] != "sudo" {
		return words
	}
	words = words[1:]
	for len(words) > 0 && strings.HasPrefix(words[0], "-") {
		// -u USER and -g GROUP take the next word as their value.
		if (words[0] == "-u" || words[0] == "-g") && len(words) > 1 {
			words = words[1:]
		}
		words = words[1:]
	}
	return words
}

// splitPipeline splits a command line into words per pipeline stage,
// honouring single quotes, double quotes and backslashes as bash does.
func splitPipeline(line string) ([][]string, error) {
	var (
		stages  [][]string
		words   []string
		word    strings.Builder
		inWord  bool
		quote   rune
		escaped bool
	)
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	for _, r := range line {
		switch {
		case escaped:
			word.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				word.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			endWord()
		case r == '|':
			endWord()
			if len(words) == 0 {
				return nil, errors.New("syntax error near unexpected token `|'")
			}
			stages = append(stages, words)
			words = nil
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, errors.New("unexpected EOF while looking for matching quote")
	}
	endWord()
	if len(words) == 0 && len(stages) > 0 {
		return nil, errors.New("syntax error: unexpected end of file")
	}
	return append(stages, words), nil
}
