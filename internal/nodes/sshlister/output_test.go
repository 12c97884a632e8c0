package sshlister

import (
	"strings"
	"testing"
)

func TestCappedBufferDropsOverflow(t *testing.T) {
	t.Parallel()
	b := newCappedBuffer(5)
	for _, chunk := range []string{"abc", "defg", "hij"} {
		if n, err := b.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want the whole chunk accepted", chunk, n, err)
		}
	}
	if b.String() != "abcde" || !b.overflowed {
		t.Fatalf("buffer = %q (overflowed %v), want \"abcde\" and overflowed", b.String(), b.overflowed)
	}
}

func TestTrimStderr(t *testing.T) {
	t.Parallel()
	if got := trimStderr("  \n warn \r\n"); got != "warn" {
		t.Fatalf("trimStderr = %q", got)
	}
	exact := strings.Repeat("x", maxStderrInError)
	if got := trimStderr(exact); got != exact {
		t.Fatalf("trimStderr cut a %d-byte message", len(exact))
	}
	if got := trimStderr(exact + "y"); got != exact+"..." {
		t.Fatalf("trimStderr(513 bytes) = %q", got)
	}
}
