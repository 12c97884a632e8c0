package installtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The go-plugin handshake the CLIs make: a provider started with this
// cookie prints one line, CORE|PROTOCOL|NETWORK|ADDRESS|grpc, and serves.
// The value is terraform-plugin-go's (tf6server.Serve, tf5server.Serve).
const (
	magicCookieKey   = "TF_PLUGIN_MAGIC_COOKIE"
	magicCookieValue = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
)

// handshakeProtocol starts the provider binary as a CLI does, without
// naming a protocol (so it offers the one it has), reads the plugin
// protocol version from its handshake line and stops it.
func handshakeProtocol(binary string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = append(os.Environ(), magicCookieKey+"="+magicCookieValue)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting the provider binary: %w", err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	fields := strings.Split(strings.TrimSpace(line), "|")
	if err != nil || len(fields) < 5 {
		return "", fmt.Errorf("the provider binary printed no plugin handshake (%q, %v): %s", line, err, stderr.String())
	}
	return fields[1], nil
}
