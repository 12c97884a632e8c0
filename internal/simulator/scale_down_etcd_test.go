package simulator

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// logRecorder keeps the simulator's log lines for assertions.
type logRecorder struct {
	t     *testing.T
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.t.Log(line)
}

func (l *logRecorder) has(substr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.lines, func(line string) bool { return strings.Contains(line, substr) })
}

const etcdClusterName = "cks-etcd-minimal-20260912"

// etcdScaleRun creates the cluster of apache/cloudstack#14159's reproduction
// through cloudstack-go (1 control, 3 etcd, root disk 80 GB, KVM, size
// workers), then scales it to each size in turn, waiting for every job. It
// returns the env, the cluster id, the log and the last job's code and
// text (0 and "" on success).
func etcdScaleRun(t *testing.T, opts Options, size int64, scales ...int64) (*testEnv, string, *logRecorder, int, string) {
	t.Helper()
	log := &logRecorder{t: t}
	opts.Logf = log.logf
	opts.DisableScanner = true
	e := newEnv(t, opts)
	p := e.cs.Kubernetes.NewCreateKubernetesClusterParams(etcdClusterName,
		e.info.KubernetesVersions["1.33.13"], etcdClusterName, e.info.ServiceOfferingID, size, e.info.ZoneID)
	p.SetNoderootdisksize(80)
	p.SetClustertype("CloudManaged")
	p.SetHypervisor("kvm")
	p.SetControlnodes(1)
	p.SetEtcdnodes(3)
	p.SetKeypair(e.info.Keypair)
	id := e.createCluster(p)
	for i, to := range scales {
		r := e.waitJob(e.scale(id, to))
		if r.Jobstatus == model.JobSucceeded {
			continue
		}
		if i != len(scales)-1 {
			t.Fatalf("scale to %d failed: %s", to, r.Jobresult)
		}
		code, text := e.mustFail(r.JobID)
		return e, id, log, code, text
	}
	return e, id, log, 0, ""
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

// activeRules renders the dumped rules as "purpose id start-end", in id
// order.
func activeRules(e *testEnv) []string {
	var out []string
	for _, r := range e.sim.DumpState().Rules {
		out = append(out, fmt.Sprintf("%s %d %d-%d", r.Purpose, r.InternalID, r.StartPort, r.EndPort))
	}
	return out
}

// TestScaleDownWithSeparateEtcdRevokesEtcdRule reproduces
// apache/cloudstack#14159 on 4.22.1.1 rule for rule: the first scale re-creates
// the node SSH range after the etcd rules, so the second one's
// removeSshFirewallRule picks etcd rule 50000 (its twin forward goes to 22),
// removes every forward from 2222 to 50000 and then conflicts with the
// still-active range. The rule ids are the minus 1495.
func TestScaleDownWithSeparateEtcdRevokesEtcdRule(t *testing.T) {
	t.Parallel()
	e, id, log, code, text := etcdScaleRun(t, Options{Profile: Profile42211}, 1, 2, 1)
	if code != wire.CodeInternalError {
		t.Fatalf("last scale: code %d (%q), want 530", code, text)
	}
	want := regexp.MustCompile(`^Scaling failed for Kubernetes cluster KubernetesCluster \{"id":\d+,"name":"` + etcdClusterName + `","uuid":"` + id + `"\}, unable to update network rules$`)
	if !want.MatchString(text) {
		t.Fatalf("errortext %q does not match %s", text, want)
	}
	cl := e.cluster(id)
	if cl.State != model.ClusterAlert || cl.Size != 2 {
		t.Fatalf("cluster state %s size %d, want Alert size 2", cl.State, cl.Size)
	}
	if w := workerVMs(e, id); len(w) != 1 {
		t.Fatalf("worker VMs %v, want exactly one", w)
	}
	// Issue ids: 1596 (6443), 1599 (LB), 1602/1604 (etcd firewall 50001/50002)
	// and 1603/1605 (their forwards) survive with 1606, the range 2222-2224.
	if got, want := activeRules(e), []string{
		"Firewall 101 6443-6443", "LoadBalancing 104 6443-6443", "Firewall 107 50001-50001", "PortForwarding 108 50001-50001",
		"Firewall 109 50002-50002", "PortForwarding 110 50002-50002", "Firewall 111 2222-2224",
	}; !slices.Equal(got, want) {
		t.Fatalf("rules left:\n got %q\nwant %q", got, want)
	}
	for _, line := range []string{
		"The SSH firewall rule null with the id 105 was revoked",                     // issue: 1600
		"The Port forwarding rule [null] with the id [106] was mark as revoked.",     // 1601
		"The Port forwarding rule [null] with the id [112] was mark as revoked.",     // 1607
		"The Port forwarding rule [null] with the id [113] was mark as revoked.",     // 1608
		`The range specified, 2222-2223, conflicts with rule FirewallRule {"id":111`, // 1606
		"which has 2222-2224",
	} {
		if !log.has(line) {
			t.Errorf("log lacks %q", line)
		}
	}
	// The rejected replacement range used id 115 (issue: 1610): the next
	// rule gets 116.
	if err := e.sim.DeleteRule(ruleID(e, model.PurposeFirewall, 50001)); err != nil {
		t.Fatal(err)
	}
	status, body := e.adminCall("createFirewallRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"}, "startport": {"50001"}})
	if status != 200 {
		t.Fatalf("createFirewallRule: %d %v", status, body)
	}
	if got := internalIDs(e)[asStr(t, inner(t, body, "createfirewallruleresponse")["id"])]; got != 116 {
		t.Fatalf("next rule id %d, want 116", got)
	}
	// The API lists firewall rules newest first.
	byID := internalIDs(e)
	fws := internalOrder(listIDs(e, "listFirewallRules", "firewallrule", url.Values{"ipaddressid": {cl.Ipaddressid}}), byID)
	if !slices.Equal(fws, []int64{116, 111, 109, 101}) {
		t.Fatalf("listFirewallRules ids %v, want [116 111 109 101]", fws)
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

// TestScaleDownWithSeparateEtcdTwoToThreeToOne: created with two workers,
// scaled to three, then to one. subList(1 + 1 - 1, 3) removes workers 3 and
// 2 (newest first) before the rules: the second scale picks etcd rule
// 50000 as above and fails with both VMs gone and node_count still 3.
func TestScaleDownWithSeparateEtcdTwoToThreeToOne(t *testing.T) {
	t.Parallel()
	e, id, log, code, text := etcdScaleRun(t, Options{Profile: Profile42211}, 2, 3, 1)
	if code != 530 || !strings.HasSuffix(text, ", unable to update network rules") {
		t.Fatalf("last scale: %d %q", code, text)
	}
	cl := e.cluster(id)
	workers := workerVMs(e, id)
	if cl.State != model.ClusterAlert || cl.Size != 3 || len(workers) != 1 {
		t.Fatalf("state %s size %d workers %v, want Alert, size 3, one worker", cl.State, cl.Size, workers)
	}
	var first string
	for _, v := range e.sim.DumpState().VMs {
		if v.Role == "worker" {
			first = v.Name
			break
		}
	}
	if workers[0] != first {
		t.Fatalf("surviving worker %s, want the oldest, %s", workers[0], first)
	}
	if got, want := activeRules(e), []string{
		"Firewall 101 6443-6443", "LoadBalancing 105 6443-6443", "Firewall 108 50001-50001", "PortForwarding 109 50001-50001",
		"Firewall 110 50002-50002", "PortForwarding 111 50002-50002", "Firewall 112 2222-2225",
	}; !slices.Equal(got, want) {
		t.Fatalf("rules left:\n got %q\nwant %q", got, want)
	}
	for _, line := range []string{
		"The SSH firewall rule null with the id 106 was revoked",
		"The Port forwarding rule [null] with the id [107] was mark as revoked.",
		"The Port forwarding rule [null] with the id [113] was mark as revoked.",
		"The Port forwarding rule [null] with the id [114] was mark as revoked.",
		`The range specified, 2222-2223, conflicts with rule FirewallRule {"id":112`,
	} {
		if !log.has(line) {
			t.Errorf("log lacks %q", line)
		}
	}
	if rows := len(e.sim.DumpState().VMMap); rows != 5 {
		t.Fatalf("%d map rows, want 5 (1 control + 1 worker + 3 etcd) against C+W+E = 7", rows)
	}
}

// TestScaleOfClusterBrokenByEtcdRulePick: a cluster left by the bad pick
// (map rows < C + node_count + E) can never be scaled again through the
// API: in Alert the manager refuses the state; in a state it accepts the
// scale worker refuses the unstable VM map; the state stays either way and
// the scanner keeps it in Alert.
func TestScaleOfClusterBrokenByEtcdRulePick(t *testing.T) {
	t.Parallel()
	e, id, _, code, _ := etcdScaleRun(t, Options{Profile: Profile42211}, 1, 2, 1)
	if code != 530 {
		t.Fatalf("set-up: last scale %d", code)
	}
	rawScale := func(params url.Values) (int, string) {
		t.Helper()
		params.Set("id", id)
		status, body := e.adminCall("scaleKubernetesCluster", params)
		if status != 200 {
			t.Fatalf("scaleKubernetesCluster: %d %v", status, body)
		}
		return e.mustFail(asStr(t, inner(t, body, "scalekubernetesclusterresponse")["jobid"]))
	}
	const unstable = "Scaling failed for Kubernetes cluster : " + etcdClusterName + ", it is in unstable state as not enough existing VM instances found"
	if code, text := rawScale(url.Values{"size": {"1"}}); code != 530 || text != "Kubernetes cluster "+etcdClusterName+" is in Alert state and can not be scaled" {
		t.Fatalf("raw scale in Alert: %d %q", code, text)
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("scanner: %s, want Alert (the map is short of C+W+E)", st)
	}
	// Forced Running (a database edit), the worker refuses the map.
	if err := e.sim.SetClusterState(id, model.ClusterRunning); err != nil {
		t.Fatal(err)
	}
	for _, params := range []url.Values{{"size": {"1"}}, {"size": {"3"}}, {"nodeids": {vmIDByRole(e, id, "-node-")}}} {
		if code, text := rawScale(params); code != 530 || text != unstable {
			t.Fatalf("raw scale %v of the broken cluster: %d %q", params, code, text)
		}
		if st := e.cluster(id).State; st != model.ClusterRunning {
			t.Fatalf("state %s after the refused scale, want it unchanged", st)
		}
	}
	if st := e.scanned(id); st != model.ClusterAlert {
		t.Fatalf("scanner: %s, want Alert again", st)
	}
	// Stop works; a stopped cluster's workers can not be removed either, and
	// start needs SSH through 2222, whose forward the bad pick removed.
	e.stopCluster(id)
	if code, text := rawScale(url.Values{"nodeids": {vmIDByRole(e, id, "-node-")}}); code != 530 || text != unstable {
		t.Fatalf("nodeids scale of the stopped broken cluster: %d %q", code, text)
	}
	if st := e.cluster(id).State; st != model.ClusterStopped {
		t.Fatalf("state %s, want Stopped", st)
	}
	if code, text := e.mustFail(e.startCluster(id)); code != 530 ||
		text != "Failed to start Kubernetes cluster : "+etcdClusterName+" in usable state as unable to retrieve kube-config for the cluster" {
		t.Fatalf("start of the broken cluster: %d %q", code, text)
	}
	if cl := e.cluster(id); cl.State != model.ClusterAlert || cl.Size != 2 || len(workerVMs(e, id)) != 1 {
		t.Fatalf("state %s size %d, workers %v: want Alert with nothing else changed", cl.State, cl.Size, workerVMs(e, id))
	}
}

// TestScaleDownWithSeparateEtcdOnPR14165: the open fix prefers the rule
// starting at 2222, so the reproduction and its 2->3->1 variant succeed;
// "fixed" is its alias.
func TestScaleDownWithSeparateEtcdOnPR14165(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{ProfilePR14165, ProfileFixed} {
		for _, sizes := range [][]int64{{1, 2, 1}, {2, 3, 1}} {
			t.Run(fmt.Sprintf("%s/%v", profile, sizes), func(t *testing.T) {
				t.Parallel()
				e, id, _, code, text := etcdScaleRun(t, Options{Profile: profile}, sizes[0], sizes[1:]...)
				if code != 0 {
					t.Fatalf("last scale failed: %d %s", code, text)
				}
				if e.info.Profile != ProfilePR14165 || e.info.CloudStackVersion != "4.22.2.0" {
					t.Fatalf("info profile %q version %q", e.info.Profile, e.info.CloudStackVersion)
				}
				cl := e.cluster(id)
				if cl.State != model.ClusterRunning || cl.Size != 1 {
					t.Fatalf("cluster state %s size %d, want Running size 1", cl.State, cl.Size)
				}
				if got, want := firewallRanges(e.firewallRules(cl.Ipaddressid)), []string{"2222-2223", "50000-50000", "50001-50001", "50002-50002", "6443-6443"}; !slices.Equal(got, want) {
					t.Fatalf("firewall rules %v, want %v", got, want)
				}
				if got, want := forwardPorts(e.portForwards(cl.Ipaddressid)), []string{"2222->22", "2223->22", "50000->22", "50001->22", "50002->22"}; !slices.Equal(got, want) {
					t.Fatalf("port forwards %v, want %v", got, want)
				}
				out := sshRun(t, e, id, cl.Ipaddress, 2222, "sudo /opt/bin/kubectl get nodes -o name")
				if lines := strings.Fields(out); len(lines) != 2 {
					t.Fatalf("kubectl get nodes -o name over SSH: %q, want two nodes", out)
				}
			})
		}
	}
}

// TestPR14165ForwardCleanupStaysUnbounded: without a rule starting at 2222
// the fix falls back to the forward-to-22 match, and the forward cleanup
// then still removes every forward of the network from 2222 to the picked
// rule's end.
func TestPR14165ForwardCleanupStaysUnbounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Profile: ProfilePR14165, DisableScanner: true})
	p := e.createParams("fallback", 1)
	p.SetEtcdnodes(1)
	id := e.createCluster(p)
	e.mustSucceed(e.scale(id, 2))
	cl := e.cluster(id)
	if err := e.sim.DeleteRule(ruleID(e, model.PurposeFirewall, nodesStartSSHPort)); err != nil {
		t.Fatal(err)
	}
	status, body := e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"publicport": {"3000"}, "privateport": {"80"}, "virtualmachineid": {vmIDByRole(e, id, "-node-")}, "openfirewall": {"false"}})
	if status != 200 {
		t.Fatalf("user PF: %d %v", status, body)
	}
	e.mustSucceed(asStr(t, inner(t, body, "createportforwardingruleresponse")["jobid"]))
	e.mustSucceed(e.scale(id, 1))
	if got, want := forwardPorts(e.portForwards(cl.Ipaddressid)), []string{"2222->22", "2223->22"}; !slices.Equal(got, want) {
		t.Fatalf("port forwards %v, want %v: the user's 3000 and etcd's 50000 fall in [2222, 50000]", got, want)
	}
	if got, want := firewallRanges(e.firewallRules(cl.Ipaddressid)), []string{"2222-2223", "6443-6443"}; !slices.Equal(got, want) {
		t.Fatalf("firewall rules %v, want %v (etcd rule 50000 picked and revoked)", got, want)
	}
}

// createPortlessRule creates a TCP firewall rule without ports on the IP.
func createPortlessRule(e *testEnv, ipID string) {
	e.t.Helper()
	status, body := e.adminCall("createFirewallRule", url.Values{"ipaddressid": {ipID}, "protocol": {"tcp"}, "cidrlist": {"10.9.0.0/16"}})
	if status != 200 {
		e.t.Fatalf("port-less rule: %d %v", status, body)
	}
	e.mustSucceed(asStr(e.t, inner(e.t, body, "createfirewallruleresponse")["jobid"]))
}

// TestPortlessTCPFirewallRuleBeforeNodeRange: a TCP firewall rule without
// ports that removeSshFirewallRule reaches before the node range (here,
// after a scale re-created the range) throws a NullPointerException on
// 4.22.0.0: the job fails with 530 and the Java message, the cluster stays
// in Scaling and cannot be deleted. 4.22.1.1 skips such rules (#12806).
func TestPortlessTCPFirewallRuleBeforeNodeRange(t *testing.T) {
	t.Parallel()
	run := func(profile string) (*testEnv, string, *struct{ code int }, string) {
		e := newEnv(t, Options{Profile: profile, DisableScanner: true})
		id := e.createCluster(e.createParams("portless", 1))
		createPortlessRule(e, e.cluster(id).Ipaddressid)
		e.mustSucceed(e.scale(id, 2)) // the range, evaluated first, is picked; it is re-created last
		r := e.waitJob(e.scale(id, 1))
		if r.Jobstatus == model.JobSucceeded {
			return e, id, &struct{ code int }{0}, ""
		}
		code, text := e.mustFail(r.JobID)
		return e, id, &struct{ code int }{code}, text
	}
	e, id, res, text := run(Profile42200)
	if res.code != 530 || text != `Cannot invoke "java.lang.Integer.intValue()" because the return value of "com.cloud.network.rules.FirewallRuleVO.getSourcePortStart()" is null` {
		t.Fatalf("4.22.0.0: %d %q", res.code, text)
	}
	if cl := e.cluster(id); cl.State != model.ClusterScaling || cl.Size != 2 || len(workerVMs(e, id)) != 1 {
		t.Fatalf("4.22.0.0: state %s size %d workers %d, want Scaling, 2, 1", cl.State, cl.Size, len(workerVMs(e, id)))
	}
	del, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(del.JobID); code != 530 || text != "Cannot perform delete operation on cluster : portless in state: Scaling" {
		t.Fatalf("delete while stuck in Scaling: %d %q", code, text)
	}
	caps, err := e.cs.Configuration.ListCapabilities(e.cs.Configuration.NewListCapabilitiesParams())
	if err != nil || caps.Capabilities.Cloudstackversion != "4.22.0.0" {
		t.Fatalf("cloudstackversion: %+v %v", caps, err)
	}

	e, id, res, text = run(Profile42211)
	if res.code != 0 {
		t.Fatalf("4.22.1.1 must skip the port-less rule: %d %q", res.code, text)
	}
	if cl := e.cluster(id); cl.State != model.ClusterRunning || cl.Size != 1 {
		t.Fatalf("4.22.1.1: state %s size %d", cl.State, cl.Size)
	}
}

// TestPortlessTCPFirewallRuleBreaksDeleteOn42200: the destroy worker uses
// the same selector on a user network; the exception leaves the cluster in
// Destroying.
func TestPortlessTCPFirewallRuleBreaksDeleteOn42200(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Profile: Profile42200, DisableScanner: true})
	p := e.createParams("userdelete", 1)
	p.SetNetworkid(e.info.IsolatedNetworkID)
	id := e.createCluster(p)
	createPortlessRule(e, e.cluster(id).Ipaddressid)
	e.mustSucceed(e.scale(id, 2))
	del, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil {
		t.Fatal(err)
	}
	if code, text := e.mustFail(del.JobID); code != 530 || !strings.HasPrefix(text, `Cannot invoke "java.lang.Integer.intValue()"`) {
		t.Fatalf("delete: %d %q", code, text)
	}
	d := e.sim.DumpState()
	if d.Clusters[0].State != model.ClusterDestroying || d.Clusters[0].GC || d.Clusters[0].Removed {
		t.Fatalf("cluster after the exception: %+v, want Destroying without the gc flag", d.Clusters[0])
	}
}

// TestTwinForwardLookupIsRandom: findByNetworkAndPorts picks one of the
// port forwards with the same public ports at random. With a user's UDP
// forward on etcd port 50000 next to etcd's TCP forward to 22, the scale
// worker picks the etcd rule (and fails) only when the draw returns the
// forward to 22. The draw follows Options.Seed.
func TestTwinForwardLookupIsRandom(t *testing.T) {
	t.Parallel()
	outcome := func(seed uint64) bool {
		e := newEnv(t, Options{Seed: seed, DisableScanner: true})
		p := e.createParams("twins", 1)
		p.SetEtcdnodes(1)
		id := e.createCluster(p)
		e.mustSucceed(e.scale(id, 2))
		cl := e.cluster(id)
		status, body := e.adminCall("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"udp"},
			"publicport": {"50000"}, "privateport": {"80"}, "virtualmachineid": {vmIDByRole(e, id, "-node-")}, "openfirewall": {"false"}})
		if status != 200 {
			t.Fatalf("UDP twin: %d %v", status, body)
		}
		e.mustSucceed(asStr(t, inner(t, body, "createportforwardingruleresponse")["jobid"]))
		return e.waitJob(e.scale(id, 1)).Jobstatus == model.JobSucceeded
	}
	seen := map[bool]bool{}
	for seed := uint64(1); seed <= 16 && len(seen) < 2; seed++ {
		got := outcome(seed)
		seen[got] = true
		if again := outcome(seed); again != got {
			t.Fatalf("seed %d: outcome %v then %v, want the same draw", seed, got, again)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("16 seeds gave only %v: the twin pick is not random", seen)
	}
}

func TestProfiles(t *testing.T) {
	t.Parallel()
	if got := Profiles(); !slices.Equal(got, []string{Profile42211, Profile42200, ProfilePR14165}) {
		t.Fatalf("Profiles() = %v", got)
	}
	versions := map[string]string{"": "4.22.1.1", Profile42211: "4.22.1.1", Profile42200: "4.22.0.0", ProfilePR14165: "4.22.2.0",
		ProfileFixed: "4.22.2.0", Profile42100: "4.21.0.0"}
	for name, version := range versions {
		e := newEnv(t, Options{Profile: name, DisableScanner: true})
		caps, err := e.cs.Configuration.ListCapabilities(e.cs.Configuration.NewListCapabilitiesParams())
		if err != nil || caps.Capabilities.Cloudstackversion != version || e.info.CloudStackVersion != version {
			t.Fatalf("profile %q: cloudstackversion %+v %v, want %s", name, caps, err, version)
		}
		if want := map[string]string{"": Profile42211, ProfileFixed: ProfilePR14165}[name]; want != "" && e.info.Profile != want {
			t.Fatalf("profile %q reported as %q, want %q", name, e.info.Profile, want)
		}
	}
	if slices.Contains(Profiles(), Profile42100) {
		t.Errorf("Profiles() = %v: 4.21.0.0 is selectable by name, not in the matrix", Profiles())
	}
	if _, err := New(Options{Profile: "4.20.0.0"}); err == nil || !strings.Contains(err.Error(), "unknown profile") {
		t.Fatalf("unknown profile: %v", err)
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
