package endpoints

import (
	"time"

	"golang.org/x/crypto/ssh"
)

// session is one SSH session channel on a forward.
type session struct {
	f        *forward
	conn     ssh.Conn
	ch       ssh.Channel
	connDone <-chan struct{} // closed when the connection is gone
	ran      bool
}

// serve answers the session's requests until the client closes the channel.
// The request channel must be drained to the end or the connection stalls.
func (s *session) serve(reqs <-chan *ssh.Request) {
	defer func() { _ = s.ch.Close() }()
	for req := range reqs {
		switch req.Type {
		case "exec":
			var payload struct{ Command string }
			if s.ran || ssh.Unmarshal(req.Payload, &payload) != nil {
				_ = req.Reply(false, nil)
				continue
			}
			s.ran = true
			_ = req.Reply(true, nil)
			s.exec(payload.Command)
		case "env":
			// Accepted and ignored, as sshd's AcceptEnv LANG LC_* would do.
			_ = req.Reply(true, nil)
		case "shell":
			_, _ = s.ch.Stderr().Write([]byte("This simulated node only runs commands (ssh exec); interactive shells are not available.\r\n"))
			_ = req.Reply(false, nil)
		default:
			// pty-req, subsystem, x11-req, agent forwarding, signals...
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
		}
	}
}

// exec runs command and reports its output and exit status, applying the
// injected latency and drop faults.
func (s *session) exec(command string) {
	m := s.f.m
	res := m.run(s.f.target(), command)

	if d := m.faults.latency(); d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-s.f.done:
			timer.Stop()
			return
		case <-s.connDone:
			timer.Stop()
			return
		}
	}

	if m.faults.takeSSHDrop() {
		// Half of the output, then the connection dies: no exit status.
		if out := res.stdout; out != "" {
			_, _ = s.ch.Write([]byte(out[:len(out)/2]))
		} else if errOut := res.stderr; errOut != "" {
			_, _ = s.ch.Stderr().Write([]byte(errOut[:len(errOut)/2]))
		}
		_ = s.conn.Close()
		return
	}

	if res.stdout != "" {
		_, _ = s.ch.Write([]byte(res.stdout))
	}
	if res.stderr != "" {
		_, _ = s.ch.Stderr().Write([]byte(res.stderr))
	}
	status := struct{ Status uint32 }{uint32(res.status)}
	_, _ = s.ch.SendRequest("exit-status", false, ssh.Marshal(&status))
	_ = s.ch.Close()
}
