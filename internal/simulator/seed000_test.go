package simulator

import (
	"errors"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// seed000 runs the reproduction of apache/cloudstack#14159 (seed 000)
// through cloudstack-go: 1 control + 3 etcd + size 1, scale to 2, then to 1.
// It returns the env, the cluster id and the last job's outcome.
func seed000(t *testing.T, profile string) (*testEnv, string, int, string) {
	t.Helper()
	e := newEnv(t, Options{Profile: profile})
	p := e.cs.Kubernetes.NewCreateKubernetesClusterParams("cks-etcd-minimal-20260912",
		e.info.KubernetesVersions["1.33.13"], "cks-etcd-minimal-20260912", e.info.ServiceOfferingID, 1, e.info.ZoneID)
	p.SetNoderootdisksize(80)
	p.SetClustertype("CloudManaged")
	p.SetHypervisor("kvm")
	p.SetControlnodes(1)
	p.SetEtcdnodes(3)
	p.SetKeypair(e.info.Keypair)
	id := e.createCluster(p)
	e.mustSucceed(e.scale(id, 2))
	r := e.waitJob(e.scale(id, 1))
	if r.Jobstatus == jobSucceeded {
		return e, id, 0, ""
	}
	code, text := e.mustFail(r.JobID)
	return e, id, code, text
}

func workerVMs(e *testEnv, id string) []string {
	var out []string
	for _, v := range e.cluster(id).Virtualmachines {
		if strings.Contains(v.Name, "-node-") {
			out = append(out, v.Name)
		}
	}
	return out
}

func TestSeed000Bug42211(t *testing.T) {
	t.Parallel()
	e, id, code, text := seed000(t, Profile42211)
	if code != codeInternalError {
		t.Fatalf("last scale: code %d (%q), want 530", code, text)
	}
	want := regexp.MustCompile(`^Scaling failed for Kubernetes cluster KubernetesCluster \{"id":\d+,"name":"cks-etcd-minimal-20260912","uuid":"` + id + `"\}, unable to update network rules$`)
	if !want.MatchString(text) {
		t.Fatalf("errortext %q does not match %s", text, want)
	}
	cl := e.cluster(id)
	if cl.State != stAlert || cl.Size != 2 {
		t.Fatalf("cluster state %s size %d, want Alert size 2", cl.State, cl.Size)
	}
	if w := workerVMs(e, id); len(w) != 1 {
		t.Fatalf("worker VMs %v, want exactly one", w)
	}
	if got, want := firewallRanges(e.firewallRules(cl.Ipaddressid)), []string{"2222-2224", "50001-50001", "50002-50002", "6443-6443"}; !slices.Equal(got, want) {
		t.Fatalf("firewall rules %v, want %v", got, want)
	}
	if got, want := forwardPorts(e.portForwards(cl.Ipaddressid)), []string{"50001->22", "50002->22"}; !slices.Equal(got, want) {
		t.Fatalf("port forwards %v, want %v", got, want)
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(cl.Ipaddress, "2222"), 5*time.Second)
	if err == nil {
		_ = conn.Close()
		t.Fatalf("TCP connect to %s:2222 succeeded, want refused", cl.Ipaddress)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("TCP connect to %s:2222: %v, want connection refused", cl.Ipaddress, err)
	}
}

func TestSeed000Fixed(t *testing.T) {
	t.Parallel()
	e, id, code, text := seed000(t, ProfileFixed)
	if code != 0 {
		t.Fatalf("last scale failed on the fixed profile: %d %s", code, text)
	}
	cl := e.cluster(id)
	if cl.State != stRunning || cl.Size != 1 {
		t.Fatalf("cluster state %s size %d, want Running size 1", cl.State, cl.Size)
	}
	if got, want := firewallRanges(e.firewallRules(cl.Ipaddressid)), []string{"2222-2223", "50000-50000", "50001-50001", "50002-50002", "6443-6443"}; !slices.Equal(got, want) {
		t.Fatalf("firewall rules %v, want %v", got, want)
	}
	if got, want := forwardPorts(e.portForwards(cl.Ipaddressid)), []string{"2222->22", "2223->22", "50000->22", "50001->22", "50002->22"}; !slices.Equal(got, want) {
		t.Fatalf("port forwards %v, want %v", got, want)
	}
	out := sshRun(t, e, id, cl.Ipaddress, 2222, "sudo /opt/bin/kubectl get nodes -o name")
	lines := strings.Fields(out)
	if len(lines) != 2 {
		t.Fatalf("kubectl get nodes -o name over SSH: %q, want two nodes", out)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "node/cks-etcd-minimal-20260912-") {
			t.Fatalf("unexpected node line %q", l)
		}
	}
}

// sshRun runs a command as user cloud with the seeded key pair, verifying
// the cluster's host key.
func sshRun(t *testing.T, e *testEnv, clusterID, host string, port int, cmd string) string {
	t.Helper()
	signer, err := ssh.ParsePrivateKey(e.sim.PrivateKeyPEM())
	if err != nil {
		t.Fatalf("parse private key: %v", err)
	}
	hostKey := e.sim.HostKey(clusterID)
	if hostKey == nil {
		t.Fatalf("no host key for cluster %s", clusterID)
	}
	cfg := &ssh.ClientConfig{User: "cloud", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(hostKey), Timeout: 10 * time.Second}
	client, err := ssh.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)), cfg)
	if err != nil {
		t.Fatalf("ssh dial %s:%d: %v", host, port, err)
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatalf("ssh session: %v", err)
	}
	defer sess.Close()
	out, err := sess.Output(cmd)
	if err != nil {
		t.Fatalf("ssh %q: %v", cmd, err)
	}
	return string(out)
}
