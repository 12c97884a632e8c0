package simulator

import (
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// A job waits in the queue before it runs: the command has answered with
// its job id, but the cluster has not moved, and the job is pending. Then
// it runs as any job does.
func TestJobQueueDelayKeepsTheClusterUntilTheJobRuns(t *testing.T) {
	t.Parallel()
	// Long enough that no stall of a busy machine between the call and
	// the reads below outlasts it.
	e := newEnv(t, Options{DisableScanner: true, JobQueueDelay: 2 * time.Second})
	id := e.createCluster(e.createParams("queued", 1))

	jobID := e.scale(id, 2)
	if c := e.cluster(id); c.State != "Running" || c.Size != 1 {
		t.Fatalf("right after the scale call the cluster is %s with size %d, want Running with 1", c.State, c.Size)
	}
	r, err := e.cs.Asyncjob.QueryAsyncJobResult(e.cs.Asyncjob.NewQueryAsyncJobResultParams(jobID))
	if err != nil || r.Jobstatus != model.JobPending {
		t.Fatalf("queryAsyncJobResult right after the call = %+v, %v; want the job pending", r, err)
	}
	e.mustSucceed(jobID)
	if c := e.cluster(id); c.State != "Running" || c.Size != 2 {
		t.Fatalf("after the job the cluster is %s with size %d, want Running with 2", c.State, c.Size)
	}
}

func TestJobQueueDelayMustNotBeNegative(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{JobQueueDelay: -time.Second}); err == nil {
		t.Fatal("New accepted a negative JobQueueDelay")
	}
}
