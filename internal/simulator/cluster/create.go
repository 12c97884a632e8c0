package cluster

import (
	"fmt"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// createRequest is createKubernetesCluster's validated input.
type createRequest struct {
	name, description string
	zone              *model.Zone
	version           *model.KubernetesVersion
	offerings         map[model.NodeRole]*model.ServiceOffering
	defaultOffering   *model.ServiceOffering
	network           *model.Network
	owner             *model.Account
	keypair           string
	controlNodes      int64
	etcdNodes         int64
	size              int64
	rootDiskSize      int64
	clusterType       string
	hypervisor        string
	csi               bool
	extras            createExtras
	// nodeTemplates is extras.nodeTemplates resolved.
	nodeTemplates map[model.NodeRole]string
}

// cmdCreateKubernetesCluster is the synchronous create phase: parameter
// checks (431), validation (530, as the create phase wraps
// CloudRuntimeException), network creation, the cluster row in state Created,
// then the async start job.
func cmdCreateKubernetesCluster(s *Workers, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	req, err := s.parseCreate(c, p)
	if err != nil {
		return nil, err
	}
	if err := s.validateCreate(req); err != nil {
		return nil, err
	}
	cl := s.insertCluster(req)
	j := s.StartJob(c, cmdPkgKubernetes+"CreateKubernetesClusterCmd", "KubernetesCluster", cl.ID, 10,
		func(jr *core.JobRun) (any, *wire.APIError) { return s.runCreate(jr, cl, c) })
	return map[string]any{"id": cl.ID, "jobid": j.ID}, nil
}

// runCreate is KubernetesClusterStartWorker.startKubernetesClusterOnCreate: etcd VMs, control
// VMs, workers, network rules, etcd rules, API, ready nodes, kubeconfig.
// Failures before the kubeconfig leave the cluster in Error, later ones in
// Alert; nothing is rolled back.
func (s *Workers) runCreate(jr *core.JobRun, c *model.Cluster, who *core.Caller) (any, *wire.APIError) {
	jr.Op = "create"
	if c.EtcdNodes == 0 {
		jr.Steps -= 2 // no etcd VMs, no etcd rules
	}
	s.transit(c, evStartRequested)
	w := &createWorker{s: s, jr: jr, c: c}
	n := s.DB.Network(c.NetworkID)
	if err := jr.Step("network"); err != nil || n == nil || n.Removed {
		return nil, w.fail(err, evCreateFailed, fmt.Sprintf("Failed to setup network for Kubernetes cluster : %s", c.Name))
	}
	s.ImplementNetwork(n)
	ip, ipErr := s.acquireClusterIP(c, n)
	if ipErr != nil {
		return nil, w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to acquire a public IP address: %v", c.Name, ipErr))
	}
	if err := w.provisionNodeVMs(n); err != nil {
		return nil, err
	}
	if err := w.setupNetworkRules(n, ip); err != nil {
		return nil, err
	}
	if err := w.awaitKubernetes(); err != nil {
		return nil, err
	}
	s.transit(c, evOperationSucceeded)
	return map[string]any{"kubernetescluster": s.renderCluster(c, who)}, nil
}

// createWorker is one run of startKubernetesClusterOnCreate.
type createWorker struct {
	s  *Workers
	jr *core.JobRun
	c  *model.Cluster
}

// fail moves the cluster with event and returns the 530: the step's
// injected error, else natural.
func (w *createWorker) fail(err error, event, natural string) *wire.APIError {
	w.s.transit(w.c, event)
	return wire.InternalError("%s", core.FailText(err, natural))
}

// deployFailed is a VM that cannot be deployed: the job fails with the
// deployment's own error (e.g. 533 capacity); the VMs already deployed stay.
func (w *createWorker) deployFailed(aerr *wire.APIError, natural string) *wire.APIError {
	w.s.transit(w.c, evCreateFailed)
	return aerr.WithContext(natural)
}

func (w *createWorker) unusable(what string) string {
	return fmt.Sprintf("Failed to setup Kubernetes cluster : %s in usable state as unable to %s", w.c.Name, what)
}

// provisionNodeVMs deploys the etcd VMs, then the control VMs, then the
// workers, each group after its step.
func (w *createWorker) provisionNodeVMs(n *model.Network) *wire.APIError {
	s, c, jr := w.s, w.c, w.jr
	if c.EtcdNodes > 0 {
		if err := jr.Step("etcd-vms"); err != nil {
			return w.fail(err, evCreateFailed, w.unusable("provision etcd node VMs"))
		}
		if aerr := s.createEtcdVMs(c, n); aerr != nil {
			return w.deployFailed(aerr, w.unusable("provision etcd node VMs"))
		}
	}
	if err := jr.Step("control-vms"); err != nil {
		return w.fail(err, evCreateFailed, w.unusable("provision the control node VM"))
	}
	prefix := model.ClusterNodePrefix(c.Name, c.ID)
	for range c.ControlNodes {
		v, aerr := s.CreateNodeVM(c, model.RoleControl, model.ControlNodeName(prefix, s.nodeNameMillis()), c.NodeOfferingID(model.RoleControl), n)
		if aerr != nil {
			return w.deployFailed(aerr, w.unusable("provision the control node VM"))
		}
		s.addMapRow(c, v)
	}
	if err := jr.Step("worker-vms"); err != nil {
		return w.fail(err, evCreateFailed, w.unusable("provision node VMs"))
	}
	for range c.Size {
		v, aerr := s.CreateNodeVM(c, model.RoleWorker, model.WorkerNodeName(prefix, s.nodeNameMillis()), c.NodeOfferingID(model.RoleWorker), n)
		if aerr != nil {
			return w.deployFailed(aerr, w.unusable("provision node VMs"))
		}
		s.addMapRow(c, v)
	}
	return nil
}

// setupNetworkRules sets up the cluster's network rules, which give it its
// API endpoint, then those of the etcd nodes.
func (w *createWorker) setupNetworkRules(n *model.Network, ip *model.PublicIP) *wire.APIError {
	s, c, jr := w.s, w.c, w.jr
	if err := jr.Step("network-rules"); err != nil {
		return w.fail(err, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules", c.Name))
	}
	if network.IsDirectAccess(n) {
		// setupKubernetesClusterNetworkRules and
		// setupKubernetesEtcdNetworkRules add nothing on a directly
		// accessed network.
		return w.directEndpoint()
	}
	if err := s.setupClusterNetworkRules(c, n, ip); err != nil {
		s.Logf("setup network rules of %s: %v", c.Name, err)
		return w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules", c.Name))
	}
	c.Endpoint = fmt.Sprintf("https://%s:%d/", ip.Address, ClusterAPIPort)
	if c.EtcdNodes == 0 {
		return nil
	}
	if err := jr.Step("etcd-rules"); err != nil {
		return w.fail(err, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules for etcd nodes", c.Name))
	}
	if err := s.setupEtcdNetworkRules(c, n, ip); err != nil {
		s.Logf("setup etcd network rules of %s: %v", c.Name, err)
		return w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules for etcd nodes", c.Name))
	}
	return nil
}

// awaitKubernetes waits for the API to answer and every node to be Ready,
// then reads the kubeconfig and checks the dashboard; a failure from the
// kubeconfig step on leaves the cluster in Alert rather than Error.
func (w *createWorker) awaitKubernetes() *wire.APIError {
	s, c, jr := w.s, w.c, w.jr
	if err := jr.Step("api"); err != nil {
		return w.fail(err, evCreateFailed, w.unusable("access control node VMs of the cluster"))
	}
	server, ok := s.clusterServer(c)
	if !ok {
		return w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to start Kubernetes cluster : %s as no public IP found for the cluster", c.Name))
	}
	if err := s.EP.AddCluster(c.ID, server.address); err != nil {
		s.Logf("Kubernetes API of %s: %v", c.Name, err)
		return w.fail(nil, evCreateFailed, w.unusable("access control node VMs of the cluster"))
	}
	if err := jr.Step("nodes-ready"); err != nil || s.readyNodeCount(c)+int(c.EtcdNodes) < int(c.ControlNodes+c.Size+c.EtcdNodes) {
		return w.fail(err, evCreateFailed, w.unusable("get the desired number of Kubernetes nodes in ready state"))
	}
	if err := jr.Step("kubeconfig"); err != nil {
		return w.fail(err, evOperationFailed, w.unusable("retrieve kube-config for the cluster"))
	}
	kubeconfig, kerr := s.EP.Kubeconfig(c.ID, c.Name)
	if kerr != nil {
		s.Logf("kubeconfig of %s: %v", c.Name, kerr)
		return w.fail(nil, evOperationFailed, w.unusable("retrieve kube-config for the cluster"))
	}
	c.Kubeconfig = kubeconfig
	if err := jr.Step("dashboard"); err != nil {
		return w.fail(err, evOperationFailed, w.unusable("get Dashboard service running for the cluster"))
	}
	return nil
}

// acquireClusterIP returns the address the cluster is reached at: none on
// a directly accessed network, the network's source NAT IP, or for a VPC tier a new VPC public IP stored as
// the cluster detail publicipid.
func (s *Workers) acquireClusterIP(c *model.Cluster, n *model.Network) (*model.PublicIP, error) {
	if network.IsDirectAccess(n) {
		return nil, nil // no public IP: the nodes are reached directly
	}
	if !network.IsVPCTier(n) {
		if ip := s.DB.SourceNatIP(n.ID); ip != nil {
			return ip, nil
		}
		return nil, fmt.Errorf("network %s has no source NAT IP", n.Name)
	}
	if ip := s.clusterIP(c); ip != nil {
		return ip, nil
	}
	ip, err := s.AllocPublicIP(c.AccountID, n.ID, n.VPCID, false)
	if err != nil {
		return nil, err
	}
	c.PublicIPID = ip.ID
	return ip, nil
}

// createEtcdVMs builds all etcd host names in one tight loop first (so
// several may share a suffix), then deploys the VMs. It stops at the first
// VM that cannot be deployed.
func (s *Workers) createEtcdVMs(c *model.Cluster, n *model.Network) *wire.APIError {
	prefix := model.EtcdNodePrefix(c.Name, c.ID)
	names := make([]string, c.EtcdNodes)
	for i := range names {
		names[i] = model.EtcdNodeName(prefix, i+1, s.Now().UnixMilli())
	}
	for _, name := range names {
		v, aerr := s.CreateNodeVM(c, model.RoleEtcd, name, c.NodeOfferingID(model.RoleEtcd), n)
		if aerr != nil {
			return aerr
		}
		s.addMapRow(c, v)
	}
	return nil
}
