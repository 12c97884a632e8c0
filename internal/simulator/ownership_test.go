package simulator

import (
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

func TestTenantAndProjectOwnership(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	adminCluster := e.createCluster(e.createParams("admins", 1))

	tenant := e.tenantClient()
	tp := tenant.Kubernetes.NewCreateKubernetesClusterParams("tenants", e.info.KubernetesVersions["1.33.13"], "tenants",
		e.info.ServiceOfferingID, 1, e.info.ZoneID)
	tp.SetKeypair("cks-key")
	tr, err := tenant.Kubernetes.CreateKubernetesCluster(tp)
	if err != nil {
		t.Fatalf("tenant create: %v", err)
	}
	e.mustSucceed(tr.JobID)

	// The tenant sees only its own cluster and can not touch the admin's.
	list, err := tenant.Kubernetes.ListKubernetesClusters(tenant.Kubernetes.NewListKubernetesClustersParams())
	if err != nil || list.Count != 1 || list.KubernetesClusters[0].Account != "tenant" {
		t.Fatalf("tenant list: %+v %v", list, err)
	}
	if len(list.KubernetesClusters[0].Virtualmachines) != 2 || list.KubernetesClusters[0].Virtualmachines[0].Instancename != "" {
		t.Fatal("a tenant must get the restricted VM view (no instance name)")
	}
	sp := tenant.Kubernetes.NewScaleKubernetesClusterParams(adminCluster)
	sp.SetSize(2)
	if _, err := tenant.Kubernetes.ScaleKubernetesCluster(sp); err == nil || !strings.Contains(err.Error(), "531") {
		t.Fatalf("tenant scaling the admin's cluster: %v", err)
	}

	// The admin sees only its own without listall, both with it.
	mine, err := e.cs.Kubernetes.ListKubernetesClusters(e.cs.Kubernetes.NewListKubernetesClustersParams())
	if err != nil || mine.Count != 1 || mine.KubernetesClusters[0].Id != adminCluster {
		t.Fatalf("admin list: %+v %v", mine, err)
	}
	lp := e.cs.Kubernetes.NewListKubernetesClustersParams()
	lp.SetListall(true)
	all, err := e.cs.Kubernetes.ListKubernetesClusters(lp)
	if err != nil || all.Count != 2 {
		t.Fatalf("admin listall: %+v %v", all, err)
	}

	// A project cluster belongs to the project account.
	pp := e.createParams("projects", 1)
	pp.SetProjectid(e.info.ProjectID)
	pr, err := tenant.Kubernetes.CreateKubernetesCluster(pp)
	if err != nil {
		t.Fatalf("project create by its owner: %v", err)
	}
	e.mustSucceed(pr.JobID)
	plp := tenant.Kubernetes.NewListKubernetesClustersParams()
	plp.SetProjectid(e.info.ProjectID)
	prj, err := tenant.Kubernetes.ListKubernetesClusters(plp)
	if err != nil || prj.Count != 1 || prj.KubernetesClusters[0].Projectid != e.info.ProjectID || prj.KubernetesClusters[0].Project != "cks-project" {
		t.Fatalf("project list: %+v %v", prj, err)
	}
	if list, _ := tenant.Kubernetes.ListKubernetesClusters(tenant.Kubernetes.NewListKubernetesClustersParams()); list.Count != 1 {
		t.Fatalf("project clusters must not show without projectid: %d", list.Count)
	}
	byID := tenant.Kubernetes.NewListKubernetesClustersParams()
	byID.SetId(pr.Id)
	if list, _ := tenant.Kubernetes.ListKubernetesClusters(byID); list.Count != 0 {
		t.Fatalf("a user's list by id must not show a project cluster without projectid: %d", list.Count)
	}
	everyProject := tenant.Kubernetes.NewListKubernetesClustersParams()
	everyProject.SetId(pr.Id)
	everyProject.SetProjectid("-1")
	if list, _ := tenant.Kubernetes.ListKubernetesClusters(everyProject); list.Count != 1 {
		t.Fatalf("projectid=-1 must show the owner's project cluster: %d", list.Count)
	}

	// An admin's listall skips project resources, except when asking for one by id.
	if all, _ := e.cs.Kubernetes.ListKubernetesClusters(lp); all.Count != 2 {
		t.Fatalf("admin listall must skip project clusters: %d", all.Count)
	}
	adminByID := e.cs.Kubernetes.NewListKubernetesClustersParams()
	adminByID.SetListall(true)
	adminByID.SetId(pr.Id)
	if list, _ := e.cs.Kubernetes.ListKubernetesClusters(adminByID); list.Count != 1 {
		t.Fatalf("admin listall by id must show the project cluster: %d", list.Count)
	}
}

func TestJobDurationKeepsJobsPending(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{JobDuration: 500 * time.Millisecond})
	r, err := e.cs.Kubernetes.CreateKubernetesCluster(e.createParams("slow", 1))
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.cs.Asyncjob.QueryAsyncJobResult(e.cs.Asyncjob.NewQueryAsyncJobResultParams(r.JobID))
	if err != nil || q.Jobstatus != model.JobPending || q.Jobresulttype != "" || len(q.Jobresult) != 0 {
		t.Fatalf("job right after the call: %+v %v", q, err)
	}
	cl := e.cluster(r.Id)
	if cl.State != model.ClusterCreated && cl.State != model.ClusterStarting {
		t.Fatalf("cluster while the job runs: %s", cl.State)
	}
	e.mustSucceed(r.JobID)
	if st := e.cluster(r.Id).State; st != model.ClusterRunning {
		t.Fatalf("after the job: %s", st)
	}
}
