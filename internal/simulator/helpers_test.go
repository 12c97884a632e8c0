package simulator

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // CloudStack signs with HMAC-SHA1.
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/cluster"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// nodesStartSSHPort is the first public port of the nodes' SSH forwards.
const nodesStartSSHPort = cluster.NodesStartSSHPort

// clusterAPIPort is the Kubernetes API's port.
const clusterAPIPort = cluster.ClusterAPIPort

// cksACLProtocol is the protocol CKS gives its ACL items.
const cksACLProtocol = cluster.CKSACLProtocol

// testEnv is a started simulator with a cloudstack-go client for its admin
// account.
type testEnv struct {
	t    *testing.T
	sim  *Simulator
	info Info
	cs   *cloudstack.CloudStackClient
}

func newEnv(t *testing.T, opts Options) *testEnv {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	info := s.Info()
	cs := cloudstack.NewClient(info.APIURL, info.APIKey, info.SecretKey, false)
	return &testEnv{t: t, sim: s, info: info, cs: cs}
}

// tenantClient is a cloudstack-go client for the tenant account.
func (e *testEnv) tenantClient() *cloudstack.CloudStackClient {
	return cloudstack.NewClient(e.info.APIURL, e.info.TenantAPIKey, e.info.TenantSecretKey, false)
}

// waitJob polls queryAsyncJobResult through cloudstack-go until the job is
// done.
func (e *testEnv) waitJob(jobID string) *cloudstack.QueryAsyncJobResultResponse {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := e.cs.Asyncjob.QueryAsyncJobResult(e.cs.Asyncjob.NewQueryAsyncJobResultParams(jobID))
		if err != nil {
			e.t.Fatalf("queryAsyncJobResult %s: %v", jobID, err)
		}
		if r.Jobstatus != model.JobPending {
			return r
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("job %s still pending", jobID)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// mustSucceed waits for a job and fails the test unless it succeeded.
func (e *testEnv) mustSucceed(jobID string) json.RawMessage {
	e.t.Helper()
	r := e.waitJob(jobID)
	if r.Jobstatus != model.JobSucceeded {
		e.t.Fatalf("job %s (%s) failed: %s", jobID, r.Cmd, r.Jobresult)
	}
	return r.Jobresult
}

// mustFail waits for a job, requires failure and returns the error text.
func (e *testEnv) mustFail(jobID string) (int, string) {
	e.t.Helper()
	r := e.waitJob(jobID)
	if r.Jobstatus != model.JobFailed {
		e.t.Fatalf("job %s (%s) succeeded, want failure: %s", jobID, r.Cmd, r.Jobresult)
	}
	var body struct {
		ErrorCode int    `json:"errorcode"`
		ErrorText string `json:"errortext"`
	}
	if err := json.Unmarshal(r.Jobresult, &body); err != nil {
		e.t.Fatalf("failed job result %s: %v", r.Jobresult, err)
	}
	if r.Jobresultcode != body.ErrorCode {
		e.t.Fatalf("jobresultcode %d != errorcode %d", r.Jobresultcode, body.ErrorCode)
	}
	return body.ErrorCode, body.ErrorText
}

// createParams builds createKubernetesCluster parameters with the seeded
// zone, offering and version 1.33.13.
func (e *testEnv) createParams(name string, size int64) *cloudstack.CreateKubernetesClusterParams {
	p := e.cs.Kubernetes.NewCreateKubernetesClusterParams(name, e.info.KubernetesVersions["1.33.13"], name,
		e.info.ServiceOfferingID, size, e.info.ZoneID)
	p.SetKeypair(e.info.Keypair)
	return p
}

// createCluster creates a cluster and waits for the job to succeed.
func (e *testEnv) createCluster(p *cloudstack.CreateKubernetesClusterParams) string {
	e.t.Helper()
	r, err := e.cs.Kubernetes.CreateKubernetesCluster(p)
	if err != nil {
		e.t.Fatalf("createKubernetesCluster: %v", err)
	}
	if r.Id == "" || r.JobID == "" {
		e.t.Fatalf("create response without id/jobid: %+v", r)
	}
	e.mustSucceed(r.JobID)
	return r.Id
}

func (e *testEnv) cluster(id string) *cloudstack.KubernetesCluster {
	e.t.Helper()
	p := e.cs.Kubernetes.NewListKubernetesClustersParams()
	p.SetId(id)
	r, err := e.cs.Kubernetes.ListKubernetesClusters(p)
	if err != nil {
		e.t.Fatalf("listKubernetesClusters: %v", err)
	}
	if r.Count != 1 {
		e.t.Fatalf("listKubernetesClusters id=%s: count %d", id, r.Count)
	}
	return r.KubernetesClusters[0]
}

func (e *testEnv) scale(id string, size int64) string {
	e.t.Helper()
	p := e.cs.Kubernetes.NewScaleKubernetesClusterParams(id)
	p.SetSize(size)
	r, err := e.cs.Kubernetes.ScaleKubernetesCluster(p)
	if err != nil {
		e.t.Fatalf("scaleKubernetesCluster: %v", err)
	}
	return r.JobID
}

func (e *testEnv) firewallRules(ipID string) []*cloudstack.FirewallRule {
	e.t.Helper()
	p := e.cs.Firewall.NewListFirewallRulesParams()
	p.SetIpaddressid(ipID)
	r, err := e.cs.Firewall.ListFirewallRules(p)
	if err != nil {
		e.t.Fatalf("listFirewallRules: %v", err)
	}
	return r.FirewallRules
}

func (e *testEnv) portForwards(ipID string) []*cloudstack.PortForwardingRule {
	e.t.Helper()
	p := e.cs.Firewall.NewListPortForwardingRulesParams()
	p.SetIpaddressid(ipID)
	r, err := e.cs.Firewall.ListPortForwardingRules(p)
	if err != nil {
		e.t.Fatalf("listPortForwardingRules: %v", err)
	}
	return r.PortForwardingRules
}

// firewallRanges renders firewall rules as sorted "start-end" strings.
func firewallRanges(rules []*cloudstack.FirewallRule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, strconv.Itoa(r.Startport)+"-"+strconv.Itoa(r.Endport))
	}
	sort.Strings(out)
	return out
}

// forwardPorts renders PFs as sorted "public->private" strings.
func forwardPorts(rules []*cloudstack.PortForwardingRule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Publicport+"->"+r.Privateport)
	}
	sort.Strings(out)
	return out
}

// rawCall sends a signed GET the way cloudstack-go does and returns the
// HTTP status and the decoded body.
func (e *testEnv) rawCall(apiKey, secret, command string, params url.Values) (int, map[string]any) {
	e.t.Helper()
	status, body := signedGet(e.t, e.info.APIURL, apiKey, secret, command, params, time.Now().Add(15*time.Minute))
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		e.t.Fatalf("%s: bad JSON %q: %v", command, body, err)
	}
	return status, out
}

// adminCall is rawCall with the admin credentials.
func (e *testEnv) adminCall(command string, params url.Values) (int, map[string]any) {
	return e.rawCall(e.info.APIKey, e.info.SecretKey, command, params)
}

// signedGet signs like cloudstack-go: keys sorted, values QueryEscape'd with
// "+" as %20 and "*" unescaped, the string lowercased, HMAC-SHA1, base64.
func signedGet(t testing.TB, apiURL, apiKey, secret, command string, params url.Values, expires time.Time) (int, []byte) {
	t.Helper()
	v := url.Values{}
	for k, vs := range params {
		v[k] = vs
	}
	v.Set("apiKey", apiKey)
	v.Set("command", command)
	v.Set("response", "json")
	v.Set("signatureversion", "3")
	v.Set("expires", expires.UTC().Format(time.RFC3339))
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		esc := strings.ReplaceAll(url.QueryEscape(v.Get(k)), "+", "%20")
		esc = strings.ReplaceAll(esc, "%2A", "*")
		parts = append(parts, k+"="+esc)
	}
	query := strings.Join(parts, "&")
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(strings.ToLower(query)))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	resp, err := http.Get(apiURL + "?" + query + "&signature=" + url.QueryEscape(sig))
	if err != nil {
		t.Fatalf("GET %s: %v", command, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", command, err)
	}
	return resp.StatusCode, body
}

// timeParse parses CloudStack's date format.
func timeParse(s string) (time.Time, error) { return time.Parse("2006-01-02T15:04:05-0700", s) }

// asObj, asList and asStr navigate decoded JSON, failing the test on a
// type mismatch.
func asObj(t testing.TB, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("want a JSON object, got %T %v", v, v)
	}
	return m
}

func asList(t testing.TB, v any) []any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("want a JSON array, got %T %v", v, v)
	}
	return l
}

func asStr(t testing.TB, v any) string {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("want a JSON string, got %T %v", v, v)
	}
	return s
}

// deleteCluster sends deleteKubernetesCluster and returns its job id.
func (e *testEnv) deleteCluster(id string) string {
	e.t.Helper()
	r, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(id))
	if err != nil {
		e.t.Fatal(err)
	}
	return r.JobID
}
