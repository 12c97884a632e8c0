package cloudstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

const cloudstackGoModule = "github.com/apache/cloudstack-go/v2"

// cloudstackGoTestdata finds test/testdata of the cloudstack-go version in
// go.mod, in the module cache.
func cloudstackGoTestdata(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", cloudstackGoModule).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", cloudstackGoModule, err)
	}
	moduleDir := strings.TrimSpace(string(out))
	if moduleDir == "" {
		t.Fatalf("%s is not in the module cache", cloudstackGoModule)
	}
	dir := filepath.Join(moduleDir, "test", "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("cloudstack-go testdata is absent: %v", err)
	}
	return dir
}

// Every envelope in cloudstack-go's own testdata: error envelopes must parse
// to their code and text; success envelopes must not be taken for errors.
func TestParseErrorCloudStackGoTestdata(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(cloudstackGoTestdata(t), "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata files (%v)", err)
	}
	var errorEnvelopes, successEnvelopes int
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var commands map[string]json.RawMessage
		if err := json.Unmarshal(raw, &commands); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for command, body := range commands {
			var env map[string]map[string]json.RawMessage
			if err := json.Unmarshal(body, &env); err != nil || len(env) != 1 {
				continue // not an object envelope
			}
			for _, inner := range env {
				code, isError := inner["errorcode"]
				if !isError {
					successEnvelopes++
					if e := ParseErrorResponse(http.StatusOK, body); e != nil {
						t.Errorf("%s %s: success envelope parsed as error %v", filepath.Base(file), command, e)
					}
					continue
				}
				errorEnvelopes++
				var wantCode int
				var wantText string
				_ = json.Unmarshal(code, &wantCode)
				_ = json.Unmarshal(inner["errortext"], &wantText)
				for _, e := range []*Error{ParseErrorResponse(wantCode, body), ParseError(errors.New(string(body)))} {
					if e == nil || e.ErrorCode != wantCode || e.Text != wantText {
						t.Errorf("%s %s: parsed %+v, want %d %q", filepath.Base(file), command, e, wantCode, wantText)
					}
				}
			}
		}
	}
	t.Logf("cloudstack-go testdata: %d files, %d success envelopes, %d error envelopes", len(files), successEnvelopes, errorEnvelopes)
	if successEnvelopes == 0 {
		t.Fatal("no envelopes found in cloudstack-go testdata")
	}
}

// Error bodies the management server sends, as ApiResponseSerializer writes
// them: an id that names nothing (431), a create KubernetesClusterManagerImpl
// refuses (530), a conflict FirewallManagerImpl.detectRulesConflict reports
// (537) and a signature ApiServer.verifyRequest refuses (401).
var serverErrorBodies = []struct {
	name       string
	status     int
	body       string
	wantCode   int
	wantCSCode int
	wantText   string
	wantKind   Kind
}{
	{
		name:     "431 entity does not exist",
		status:   431,
		body:     `{"listkubernetesclustersresponse":{"uuidList":[],"errorcode":431,"cserrorcode":4350,"errortext":"Invalid parameter id value=6f1c9a52-3d1e-4a8b-9d2c-8b1e2f3a4b5c due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class."}}`,
		wantCode: 431, wantCSCode: 4350,
		wantText: "Invalid parameter id value=6f1c9a52-3d1e-4a8b-9d2c-8b1e2f3a4b5c due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.",
		wantKind: KindNotFound,
	},
	{
		name:     "530 synchronous create failure",
		status:   530,
		body:     `{"createkubernetesclusterresponse":{"uuidList":[],"errorcode":530,"cserrorcode":4250,"errortext":"Network ID: 8f3c2d1e-0000-4000-8000-000000000001 is already under use by another Kubernetes cluster"}}`,
		wantCode: 530, wantCSCode: 4250,
		wantText: "Network ID: 8f3c2d1e-0000-4000-8000-000000000001 is already under use by another Kubernetes cluster",
		wantKind: KindBusiness,
	},
	{
		name:     "537 firewall conflict",
		status:   537,
		body:     `{"createfirewallruleresponse":{"uuidList":[],"errorcode":537,"cserrorcode":4360,"errortext":"The range specified, 2222-2223, conflicts with rule FirewallRule {\"id\":1599,\"networkId\":204,\"purpose\":\"Firewall\",\"state\":\"Active\",\"uuid\":\"0c0e5a3e-7a1c-4d2e-9b7f-1f2e3d4c5b6a\"} which has 2222-2224"}}`,
		wantCode: 537, wantCSCode: 4360,
		wantText: `The range specified, 2222-2223, conflicts with rule FirewallRule {"id":1599,"networkId":204,"purpose":"Firewall","state":"Active","uuid":"0c0e5a3e-7a1c-4d2e-9b7f-1f2e3d4c5b6a"} which has 2222-2224`,
		wantKind: KindConflict,
	},
	{
		name:     "401 bad signature",
		status:   401,
		body:     `{"listzonesresponse":{"uuidList":[],"errorcode":401,"errortext":"unable to verify user credentials and/or request signature"}}`,
		wantCode: 401,
		wantText: "unable to verify user credentials and/or request signature",
		wantKind: KindAuth,
	},
}

func TestParseErrorServerBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range serverErrorBodies {
		// What cloudstack-go itself returns for this response.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		}))
		cs := csgo.NewClient(srv.URL, "key", "secret", true)
		_, csErr := cs.Zone.ListZones(cs.Zone.NewListZonesParams())
		srv.Close()
		if csErr == nil {
			t.Fatalf("%s: cloudstack-go returned no error", tc.name)
		}

		for source, e := range map[string]*Error{
			"body":            ParseErrorResponse(tc.status, []byte(tc.body)),
			"cloudstack-go":   ParseError(csErr),
			"raw JSON string": ParseError(errors.New(tc.body)),
			"wrapped":         ParseError(fmt.Errorf("creating: %w", csErr)),
		} {
			if e == nil {
				t.Errorf("%s via %s: nil", tc.name, source)
				continue
			}
			if e.ErrorCode != tc.wantCode || e.CSErrorCode != tc.wantCSCode || e.Text != tc.wantText || e.Kind() != tc.wantKind {
				t.Errorf("%s via %s: got code=%d cs=%d kind=%v text=%q", tc.name, source, e.ErrorCode, e.CSErrorCode, e.Kind(), e.Text)
			}
		}
	}
}

// cloudstack-go's GetAsyncJobResult reports a failed job as
// "Undefined error: {json}"; ParseError must read it.
func TestParseErrorUndefinedJobError(t *testing.T) {
	t.Parallel()
	const text = `Scaling failed for Kubernetes cluster KubernetesCluster {"id":12,"name":"prod","uuid":"c0ffee00-0000-4000-8000-000000000012"}, unable to update network rules`
	result, _ := json.Marshal(map[string]any{"errorcode": 530, "errortext": text})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(envelope("queryAsyncJobResult", map[string]any{
			"jobid": "j-1", "jobstatus": 2, "jobresultcode": 530, "jobresulttype": "object", "jobresult": json.RawMessage(result),
		})))
	}))
	defer srv.Close()
	cs := csgo.NewClient(srv.URL, "key", "secret", true)
	_, csErr := cs.GetAsyncJobResult("j-1", 10)
	if csErr == nil || !strings.HasPrefix(csErr.Error(), "Undefined error: ") {
		t.Fatalf("cloudstack-go error = %v", csErr)
	}
	e := ParseError(csErr)
	if e.ErrorCode != 530 || e.Text != text || e.Kind() != KindBusiness {
		t.Fatalf("parsed %+v", e)
	}
}

func TestKindByCode(t *testing.T) {
	t.Parallel()
	cases := map[int]Kind{
		401: KindAuth, 429: KindTransient, 500: KindTransient, 502: KindTransient, 503: KindTransient,
		504: KindTransient, 530: KindBusiness, 531: KindOther, 533: KindOther, 534: KindOther, 536: KindOther,
		537: KindConflict, 431: KindOther, 432: KindOther, 400: KindOther,
	}
	for code, want := range cases {
		if got := (&Error{ErrorCode: code, Text: "x"}).Kind(); got != want {
			t.Errorf("errorcode %d: kind %v, want %v", code, got, want)
		}
		if got := (&Error{HTTPStatus: code}).Kind(); got != want {
			t.Errorf("HTTP %d: kind %v, want %v", code, got, want)
		}
	}
	if k := NewNotFoundError("listVirtualMachines", "VM", "vm-1").Kind(); k != KindNotFound {
		t.Errorf("NewNotFoundError kind = %v", k)
	}
}

func TestParseErrorGoErrors(t *testing.T) {
	t.Parallel()
	refused := &url.Error{
		Op:  "Get",
		URL: "https://cloud.example.com/client/api?apiKey=AKAKAK&command=listZones&signature=SIGSIG%3D",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)},
	}
	cases := []struct {
		name string
		err  error
		want Kind
	}{
		{"connection refused", refused, KindTransient},
		{"deadline", context.DeadlineExceeded, KindTransient},
		{"request timeout", &url.Error{Op: "Post", URL: "https://h/client/api", Err: context.DeadlineExceeded}, KindTransient},
		{"cancelled", context.Canceled, KindOther},
		{"dns not found", &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}, KindOther},
		{"dns timeout", &net.DNSError{Err: "timeout", Name: "slow.example", IsTimeout: true}, KindTransient},
		{"plain", errors.New("something odd"), KindOther},
		{"cs formatted", (&csgo.CSError{ErrorCode: 537, CSErrorCode: 4360, ErrorText: "conflict"}).Error(), KindConflict},
	}
	for _, tc := range cases {
		if got := KindOf(tc.err); got != tc.want {
			t.Errorf("%s: kind %v, want %v", tc.name, got, tc.want)
		}
	}
	msg := ParseError(refused).Error()
	if strings.Contains(msg, "AKAKAK") || strings.Contains(msg, "SIGSIG") || !strings.Contains(msg, "cloud.example.com") {
		t.Errorf("redaction: %s", msg)
	}
	if !errors.Is(ParseError(refused), syscall.ECONNREFUSED) {
		t.Errorf("the cause is lost")
	}
	if ParseError(nil) != nil || IsNotFound(nil) || IsTransient(nil) || IsConflict(nil) {
		t.Errorf("nil handling")
	}
	orig := &Error{Command: "x", ErrorCode: 537}
	if ParseError(fmt.Errorf("wrap: %w", orig)) != orig || !IsConflict(fmt.Errorf("wrap: %w", orig)) {
		t.Errorf("a wrapped *Error is not returned as is")
	}
	if got := (&Error{Text: "see https://h/api?apikey=abc&signature=def&x=1"}).Error(); strings.Contains(got, "abc") || strings.Contains(got, "def") {
		t.Errorf("secret parameters in text not masked: %s", got)
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{Command: "createFirewallRule", ErrorCode: 537, CSErrorCode: 4360, Text: "conflict"},
			"CloudStack API createFirewallRule: error 537 (cserrorcode 4360): conflict"},
		{&Error{Command: "scaleKubernetesCluster", ErrorCode: 530, Text: "Scaling failed"},
			"CloudStack API scaleKubernetesCluster: error 530: Scaling failed"},
		{NewNotFoundError("listKubernetesClusters", "Kubernetes cluster", "c-1"),
			"CloudStack API listKubernetesClusters: Kubernetes cluster c-1 does not exist"},
		{&Error{Command: "listZones", Err: context.DeadlineExceeded},
			"CloudStack API listZones: context deadline exceeded"},
	}
	for _, tc := range cases {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}
