package simulator

import (
	"net/url"
	"testing"
)

func inner(t *testing.T, body map[string]any, key string) map[string]any {
	t.Helper()
	m, ok := body[key].(map[string]any)
	if !ok {
		t.Fatalf("response has no %q object: %v", key, body)
	}
	return m
}

func TestListEnvelopeAndPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	const key = "listkubernetessupportedversionsresponse"
	cmd := "listKubernetesSupportedVersions"

	_, body := e.adminCall(cmd, nil)
	all := inner(t, body, key)
	if all["count"] != float64(5) || len(asList(t, all["kubernetessupportedversion"])) != 5 {
		t.Fatalf("full list: %v", all)
	}
	_, body = e.adminCall(cmd, url.Values{"page": {"2"}, "pagesize": {"2"}})
	page := inner(t, body, key)
	if page["count"] != float64(5) || len(asList(t, page["kubernetessupportedversion"])) != 2 {
		t.Fatalf("page 2 of size 2: count must be the total, got %v", page)
	}
	_, body = e.adminCall(cmd, url.Values{"page": {"3"}, "pagesize": {"2"}})
	if last := inner(t, body, key); len(asList(t, last["kubernetessupportedversion"])) != 1 {
		t.Fatalf("last page: %v", last)
	}
	_, body = e.adminCall(cmd, url.Values{"page": {"4"}, "pagesize": {"2"}})
	past := inner(t, body, key)
	if len(past) != 1 || past["count"] != float64(5) {
		t.Fatalf("page past the end must be {count:5}, got %v", past)
	}
	_, body = e.adminCall(cmd, url.Values{"pagesize": {"-1"}})
	if unlimited := inner(t, body, key); len(asList(t, unlimited["kubernetessupportedversion"])) != 5 {
		t.Fatalf("pagesize=-1: %v", unlimited)
	}
	_, body = e.adminCall(cmd, url.Values{"keyword": {"no-such-version"}})
	if empty := inner(t, body, key); len(empty) != 0 {
		t.Fatalf("empty result must be {}, got %v", empty)
	}

	status, body := e.adminCall(cmd, url.Values{"pagesize": {"501"}})
	assertError(t, status, inner(t, body, key), 431, 4350, "Page size can't exceed max allowed page size value: 500")
	status, body = e.adminCall(cmd, url.Values{"pagesize": {"-1"}, "page": {"1"}})
	assertError(t, status, inner(t, body, key), 431, 4350, "Can't specify page parameter when pagesize is -1 (Unlimited)")
}

func assertError(t *testing.T, status int, body map[string]any, code, csCode int, text string) {
	t.Helper()
	if status != code || body["errorcode"] != float64(code) || body["cserrorcode"] != float64(csCode) || body["errortext"] != text {
		t.Fatalf("want HTTP %d errorcode %d cserrorcode %d %q; got HTTP %d %v", code, code, csCode, text, status, body)
	}
	if ul, ok := body["uuidList"].([]any); !ok || len(ul) != 0 {
		t.Fatalf("error body without an empty uuidList: %v", body)
	}
}

func TestErrorEnvelopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	status, body := e.adminCall("fooBar", nil)
	assertError(t, status, inner(t, body, "foobarresponse"), 432, 9999, "The given command does not exist or it is not available for user")

	const missing = "11111111-2222-4333-8444-555555555555"
	status, body = e.adminCall("listKubernetesClusters", url.Values{"id": {missing}})
	assertError(t, status, inner(t, body, "listkubernetesclustersresponse"), 431, 4350,
		"Invalid parameter id value="+missing+" due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.")

	status, body = e.adminCall("scaleKubernetesCluster", nil)
	assertError(t, status, inner(t, body, "scalekubernetesclusterresponse"), 431, 9999,
		"Unable to execute API command scalekubernetescluster due to missing parameter id")

	status, body = e.adminCall("createKubernetesCluster", url.Values{"name": {"small"}, "zoneid": {e.info.ZoneID},
		"size": {"1"}, "kubernetesversionid": {e.info.KubernetesVersions["1.33.13"]}, "serviceofferingid": {e.info.SmallServiceOfferingID}})
	assertError(t, status, inner(t, body, "createkubernetesclusterresponse"), 530, 4250,
		"Kubernetes cluster cannot be created with service offering ID: "+e.info.SmallServiceOfferingID+", Kubernetes cluster template needs minimum 2 vCPUs and 2048 MB RAM")
}

func TestAsyncEnvelopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	_, body := e.adminCall("createKubernetesCluster", url.Values{"name": {"env"}, "zoneid": {e.info.ZoneID}, "size": {"1"},
		"kubernetesversionid": {e.info.KubernetesVersions["1.33.13"]}, "serviceofferingid": {e.info.ServiceOfferingID}})
	create := inner(t, body, "createkubernetesclusterresponse")
	if len(create) != 2 || create["id"] == nil || create["jobid"] == nil {
		t.Fatalf("async create envelope must be {id, jobid}: %v", create)
	}
	e.mustSucceed(asStr(t, create["jobid"]))
	_, body = e.adminCall("stopKubernetesCluster", url.Values{"id": {asStr(t, create["id"])}})
	stop := inner(t, body, "stopkubernetesclusterresponse")
	if len(stop) != 1 || stop["jobid"] == nil {
		t.Fatalf("async envelope must be {jobid}: %v", stop)
	}
	e.mustSucceed(asStr(t, stop["jobid"]))
	_, body = e.adminCall("queryAsyncJobResult", url.Values{"jobid": {asStr(t, stop["jobid"])}})
	job := inner(t, body, "queryasyncjobresultresponse")
	if result, ok := job["jobresult"].(map[string]any); !ok || result["success"] != true {
		t.Fatalf("stop job result must be {success:true}: %v", job)
	}
}
