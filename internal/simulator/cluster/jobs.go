package cluster

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// cmdPkgKubernetes is the Java package of the cluster commands, reported in
// queryAsyncJobResult's cmd field.
const cmdPkgKubernetes = "org.apache.cloudstack.api.command.user.kubernetes.cluster."

// clusterJob starts the job of a command on an existing cluster and returns
// the command's response, the job id. Callers hold the lock.
func (s *Workers) clusterJob(c *core.Caller, cl *model.Cluster, cmdClass string, steps int,
	run func(jr *core.JobRun) (any, *wire.APIError)) (map[string]any, *wire.APIError) {
	j := s.StartJob(c, cmdPkgKubernetes+cmdClass, "KubernetesCluster", cl.ID, steps, run)
	return map[string]any{"jobid": j.ID}, nil
}
