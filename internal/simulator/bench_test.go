package simulator

import (
	"fmt"
	"net/url"
	"testing"
	"time"
)

// BenchmarkListClusters measures listKubernetesClusters (with its scanner
// pass) over a fleet of 40 clusters of 1 control and 2 workers.
func BenchmarkListClusters(b *testing.B) {
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	info := s.Info()
	expires := time.Now().Add(time.Hour)
	for i := range 40 {
		status, body := signedGet(b, info.APIURL, info.APIKey, info.SecretKey, "createKubernetesCluster",
			url.Values{"name": {fmt.Sprintf("bench-%d", i)}, "zoneid": {info.ZoneID}, "size": {"2"},
				"kubernetesversionid": {info.KubernetesVersions["1.33.13"]}, "serviceofferingid": {info.ServiceOfferingID}}, expires)
		if status != 200 {
			b.Fatalf("create: %d %s", status, body)
		}
	}
	s.rt.WaitJobs()
	b.ResetTimer()
	for range b.N {
		if status, _ := signedGet(b, info.APIURL, info.APIKey, info.SecretKey, "listKubernetesClusters", nil, expires); status != 200 {
			b.Fatalf("list: %d", status)
		}
	}
}
