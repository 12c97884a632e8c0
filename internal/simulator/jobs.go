package simulator

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Java command classes reported in queryAsyncJobResult's cmd field.
const (
	cmdPkgKubernetes = "org.apache.cloudstack.api.command.user.kubernetes.cluster."
)

// clusterJob starts the job of a command on an existing cluster and returns
// the command's response, the job id. Callers hold the lock.
func (s *Simulator) clusterJob(c *core.Caller, cl *model.Cluster, cmdClass string, steps int,
	run func(jr *core.JobRun) (any, *wire.APIError)) (map[string]any, *wire.APIError) {
	j := s.rt.StartJob(c, cmdPkgKubernetes+cmdClass, "KubernetesCluster", cl.ID, steps, run)
	return map[string]any{"jobid": j.ID}, nil
}
