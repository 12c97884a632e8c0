package sshlister

import (
	"bytes"
	"fmt"
	"strings"
)

const (
	// maxStdout bounds memory use. A node's JSON is about 4 to 20 KB
	// (status.images lists up to 50 images), so this covers well over a
	// thousand nodes; more output is an error, never a truncated list.
	maxStdout = 32 << 20
	// maxStderr keeps more than maxStderrInError so that trimming whitespace still leaves enough.
	maxStderr = 64 << 10
	// maxStderrInError is how much of stderr an error message quotes.
	maxStderrInError = 512
)

// CommandError reports a remote command that ended with a non-zero status or a signal.
type CommandError struct {
	// Address is the host:port the command ran through.
	Address string
	// Command is the remote command line.
	Command string
	// ExitStatus is the remote exit status.
	ExitStatus int
	// Signal is the terminating signal name, if any.
	Signal string
	// Stderr is the trimmed start of the command's standard error.
	Stderr string
}

// Error implements error.
func (e *CommandError) Error() string {
	how := fmt.Sprintf("exited with status %d", e.ExitStatus)
	if e.Signal != "" {
		how = "was killed by signal " + e.Signal
	}
	msg := fmt.Sprintf("ssh %s: %q %s", e.Address, e.Command, how)
	if e.Stderr == "" {
		return msg + " and printed nothing on stderr"
	}
	return msg + ": " + e.Stderr
}

// trimStderr keeps the first maxStderrInError bytes of trimmed stderr, cut on a UTF-8 boundary.
func trimStderr(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxStderrInError {
		s = s[:maxStderrInError]
		// Drop a rune cut in half by the byte limit.
		s = strings.ToValidUTF8(s, "") + "..."
	}
	return s
}

func stderrSuffix(stderr string) string {
	if t := trimStderr(stderr); t != "" {
		return "; stderr: " + t
	}
	return ""
}

// cappedBuffer keeps at most limit bytes and silently drops the rest, so a
// chatty server cannot exhaust memory and the session still drains.
type cappedBuffer struct {
	b          bytes.Buffer
	limit      int
	overflowed bool
}

func newCappedBuffer(limit int) *cappedBuffer { return &cappedBuffer{limit: limit} }

// Write implements io.Writer.
func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.limit - c.b.Len()
	if len(p) > room {
		c.overflowed = true
		c.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	c.b.Write(p)
	return len(p), nil
}

func (c *cappedBuffer) String() string { return c.b.String() }

// Bytes returns the kept bytes; they alias the buffer.
func (c *cappedBuffer) Bytes() []byte { return c.b.Bytes() }
