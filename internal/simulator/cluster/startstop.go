package cluster

import (
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

func cmdStartKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "StartKubernetesClusterCmd", 4,
		func(jr *core.JobRun) (any, *wire.APIError) { return s.runStart(jr, cl, c) })
}

func cmdStopKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	cl, err := s.requireCluster(c, p)
	if err != nil {
		return nil, err
	}
	return s.clusterJob(c, cl, "StopKubernetesClusterCmd", 2,
		func(jr *core.JobRun) (any, *wire.APIError) { return s.runStop(jr, cl) })
}

// runStart is KubernetesClusterManagerImpl.startKubernetesCluster: a no-op
// when Running or Starting; otherwise KubernetesClusterStartWorker.
// startStoppedKubernetesCluster (also from states without a StartRequested
// transition, where the worker carries on): start every mapped VM, check the
// API endpoint on 6443, then read the kubeconfig over SSH through the
// cluster IP's port 2222 (the PF to the first control node). A failure moves
// the cluster to Alert.
func (s *Workers) runStart(jr *core.JobRun, c *model.Cluster, who *core.Caller) (any, *wire.APIError) {
	jr.Op = "start"
	if c.Removed {
		return nil, wire.InternalError("Kubernetes cluster %s has been removed", c.Name)
	}
	if c.State == model.ClusterRunning || c.State == model.ClusterStarting {
		return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
	}
	s.transit(c, evStartRequested)
	fail := func(err error, natural string) (any, *wire.APIError) {
		s.transit(c, evOperationFailed)
		return nil, wire.InternalError("%s", core.FailText(err, natural))
	}
	if err := jr.Step("vms"); err != nil {
		return fail(err, fmt.Sprintf("Failed to start all VMs in Kubernetes cluster : %s", c.Name))
	}
	for _, row := range s.DB.MapRows(c.ID) {
		v := s.DB.VM(row.VMID)
		if v == nil || v.State == model.VMDestroyed || v.State == model.VMExpunging {
			return fail(nil, fmt.Sprintf("Failed to start all VMs in Kubernetes cluster : %s", c.Name))
		}
		s.SetVMState(v, model.VMRunning)
	}
	if c.Endpoint == "" {
		return fail(nil, fmt.Sprintf("Kubernetes cluster : %s has invalid API endpoint. Can not verify if cluster is in ready state", c.Name))
	}
	server, ok := s.clusterServer(c)
	if !ok {
		return fail(nil, fmt.Sprintf("Failed to start Kubernetes cluster : %s as no public IP found for the cluster", c.Name))
	}
	unusable := fmt.Sprintf("Failed to start Kubernetes cluster : %s in usable state", c.Name)
	if err := jr.Step("api"); err != nil {
		return fail(err, unusable)
	}
	if err := s.EP.AddCluster(c.ID, server.address); err != nil {
		s.Logf("Kubernetes API of %s: %v", c.Name, err)
		return fail(nil, unusable)
	}
	if !s.APIReachable(c) {
		return fail(nil, unusable)
	}
	noConfig := fmt.Sprintf("Failed to start Kubernetes cluster : %s in usable state as unable to retrieve kube-config for the cluster", c.Name)
	if err := jr.Step("kubeconfig"); err != nil {
		return fail(err, noConfig)
	}
	// isKubernetesClusterKubeConfigAvailable reads it over SSH every time.
	if !s.ControlSSHReachable(c) {
		return fail(nil, noConfig)
	}
	kubeconfig, err := s.EP.Kubeconfig(c.ID, c.Name)
	if err != nil {
		return fail(nil, noConfig)
	}
	c.Kubeconfig = kubeconfig
	s.transit(c, evOperationSucceeded)
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}

// runStop stops every mapped VM: a no-op when Stopped or Stopping.
func (s *Workers) runStop(jr *core.JobRun, c *model.Cluster) (any, *wire.APIError) {
	jr.Op = "stop"
	if c.Removed {
		return nil, wire.InternalError("Kubernetes cluster %s has been removed", c.Name)
	}
	if c.State == model.ClusterStopped || c.State == model.ClusterStopping {
		return map[string]any{"success": true}, nil
	}
	s.transit(c, evStopRequested)
	if err := jr.Step("vms"); err != nil {
		s.transit(c, evOperationFailed)
		return nil, wire.InternalError("%s", core.FailText(err, fmt.Sprintf("Failed to stop Kubernetes cluster : %s, unable to stop all VMs", c.Name)))
	}
	for _, row := range s.DB.MapRows(c.ID) {
		if v := s.DB.VM(row.VMID); v != nil && v.State == model.VMRunning {
			s.SetVMState(v, model.VMStopped)
		}
	}
	s.transit(c, evOperationSucceeded)
	return map[string]any{"success": true}, nil
}
