package simulator

import (
	"fmt"
)

// createRequest is createKubernetesCluster's validated input.
type createRequest struct {
	name, description string
	zone              *zone
	version           *k8sVersion
	offerings         map[nodeRole]*serviceOffering
	defaultOffering   *serviceOffering
	network           *network
	owner             *account
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
	nodeTemplates map[nodeRole]string
}

// cmdCreateKubernetesCluster is the synchronous create phase: parameter
// checks (431), validation (530, as the create phase wraps
// CloudRuntimeException), network creation, the cluster row in state Created,
// then the async start job.
func cmdCreateKubernetesCluster(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	req, err := s.parseCreate(c, p)
	if err != nil {
		return nil, err
	}
	if err := s.validateCreate(req); err != nil {
		return nil, err
	}
	cl := s.insertCluster(req)
	j := s.startJob(c, cmdPkgKubernetes+"CreateKubernetesClusterCmd", "KubernetesCluster", cl.id, 10,
		func(jr *jobRun) (any, *apiError) { return s.runCreate(jr, cl, c) })
	return map[string]any{"id": cl.id, "jobid": j.id}, nil
}

// runCreate is KubernetesClusterStartWorker.startKubernetesClusterOnCreate: etcd VMs, control
// VMs, workers, network rules, etcd rules, API, ready nodes, kubeconfig.
// Failures before the kubeconfig leave the cluster in Error, later ones in
// Alert; nothing is rolled back.
func (s *Simulator) runCreate(jr *jobRun, c *cluster, who *caller) (any, *apiError) {
	jr.op = "create"
	if c.etcdNodes == 0 {
		jr.steps -= 2 // no etcd VMs, no etcd rules
	}
	s.transit(c, evStartRequested)
	w := &createWorker{s: s, jr: jr, c: c}
	n := s.st.network(c.networkID)
	if err := jr.step("network"); err != nil || n == nil || n.removed {
		return nil, w.fail(err, evCreateFailed, fmt.Sprintf("Failed to setup network for Kubernetes cluster : %s", c.name))
	}
	s.implementNetwork(n)
	ip, ipErr := s.acquireClusterIP(c, n)
	if ipErr != nil {
		return nil, w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to acquire a public IP address: %v", c.name, ipErr))
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
	s  *Simulator
	jr *jobRun
	c  *cluster
}

// fail moves the cluster with event and returns the 530: the step's
// injected error, else natural.
func (w *createWorker) fail(err error, event, natural string) *apiError {
	w.s.transit(w.c, event)
	return internalError("%s", failText(err, natural))
}

// deployFailed is a VM that cannot be deployed: the job fails with the
// deployment's own error (e.g. 533 capacity); the VMs already deployed stay.
func (w *createWorker) deployFailed(aerr *apiError, natural string) *apiError {
	w.s.transit(w.c, evCreateFailed)
	return aerr.withContext(natural)
}

func (w *createWorker) unusable(what string) string {
	return fmt.Sprintf("Failed to setup Kubernetes cluster : %s in usable state as unable to %s", w.c.name, what)
}

// provisionNodeVMs deploys the etcd VMs, then the control VMs, then the
// workers, each group after its step.
func (w *createWorker) provisionNodeVMs(n *network) *apiError {
	s, c, jr := w.s, w.c, w.jr
	if c.etcdNodes > 0 {
		if err := jr.step("etcd-vms"); err != nil {
			return w.fail(err, evCreateFailed, w.unusable("provision etcd node VMs"))
		}
		if aerr := s.createEtcdVMs(c, n); aerr != nil {
			return w.deployFailed(aerr, w.unusable("provision etcd node VMs"))
		}
	}
	if err := jr.step("control-vms"); err != nil {
		return w.fail(err, evCreateFailed, w.unusable("provision the control node VM"))
	}
	prefix := clusterNodePrefix(c.name, c.id)
	for range c.controlNodes {
		v, aerr := s.createNodeVM(c, roleControl, controlNodeName(prefix, s.nodeNameMillis()), c.nodeOfferingID(roleControl), n)
		if aerr != nil {
			return w.deployFailed(aerr, w.unusable("provision the control node VM"))
		}
		s.addMapRow(c, v)
	}
	if err := jr.step("worker-vms"); err != nil {
		return w.fail(err, evCreateFailed, w.unusable("provision node VMs"))
	}
	for range c.size {
		v, aerr := s.createNodeVM(c, roleWorker, workerNodeName(prefix, s.nodeNameMillis()), c.nodeOfferingID(roleWorker), n)
		if aerr != nil {
			return w.deployFailed(aerr, w.unusable("provision node VMs"))
		}
		s.addMapRow(c, v)
	}
	return nil
}

// setupNetworkRules sets up the cluster's network rules, which give it its
// API endpoint, then those of the etcd nodes.
func (w *createWorker) setupNetworkRules(n *network, ip *publicIP) *apiError {
	s, c, jr := w.s, w.c, w.jr
	if err := jr.step("network-rules"); err != nil {
		return w.fail(err, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules", c.name))
	}
	if isDirectAccess(n) {
		// setupKubernetesClusterNetworkRules and
		// setupKubernetesEtcdNetworkRules add nothing on a directly
		// accessed network.
		return w.directEndpoint()
	}
	if err := s.setupClusterNetworkRules(c, n, ip); err != nil {
		s.logf("setup network rules of %s: %v", c.name, err)
		return w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules", c.name))
	}
	c.endpoint = fmt.Sprintf("https://%s:%d/", ip.address, clusterAPIPort)
	if c.etcdNodes == 0 {
		return nil
	}
	if err := jr.step("etcd-rules"); err != nil {
		return w.fail(err, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules for etcd nodes", c.name))
	}
	if err := s.setupEtcdNetworkRules(c, n, ip); err != nil {
		s.logf("setup etcd network rules of %s: %v", c.name, err)
		return w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to setup Kubernetes cluster : %s, unable to setup network rules for etcd nodes", c.name))
	}
	return nil
}

// awaitKubernetes waits for the API to answer and every node to be Ready,
// then reads the kubeconfig and checks the dashboard; a failure from the
// kubeconfig step on leaves the cluster in Alert rather than Error.
func (w *createWorker) awaitKubernetes() *apiError {
	s, c, jr := w.s, w.c, w.jr
	if err := jr.step("api"); err != nil {
		return w.fail(err, evCreateFailed, w.unusable("access control node VMs of the cluster"))
	}
	server, ok := s.clusterServer(c)
	if !ok {
		return w.fail(nil, evCreateFailed, fmt.Sprintf("Failed to start Kubernetes cluster : %s as no public IP found for the cluster", c.name))
	}
	if err := s.ep.AddCluster(c.id, server.address); err != nil {
		s.logf("Kubernetes API of %s: %v", c.name, err)
		return w.fail(nil, evCreateFailed, w.unusable("access control node VMs of the cluster"))
	}
	if err := jr.step("nodes-ready"); err != nil || s.readyNodeCount(c)+int(c.etcdNodes) < int(c.controlNodes+c.size+c.etcdNodes) {
		return w.fail(err, evCreateFailed, w.unusable("get the desired number of Kubernetes nodes in ready state"))
	}
	if err := jr.step("kubeconfig"); err != nil {
		return w.fail(err, evOperationFailed, w.unusable("retrieve kube-config for the cluster"))
	}
	kubeconfig, kerr := s.ep.Kubeconfig(c.id, c.name)
	if kerr != nil {
		s.logf("kubeconfig of %s: %v", c.name, kerr)
		return w.fail(nil, evOperationFailed, w.unusable("retrieve kube-config for the cluster"))
	}
	c.kubeconfig = kubeconfig
	if err := jr.step("dashboard"); err != nil {
		return w.fail(err, evOperationFailed, w.unusable("get Dashboard service running for the cluster"))
	}
	return nil
}

// acquireClusterIP returns the address the cluster is reached at: none on
// a directly accessed network, the network's source NAT IP, or for a VPC tier a new VPC public IP stored as
// the cluster detail publicipid.
func (s *Simulator) acquireClusterIP(c *cluster, n *network) (*publicIP, error) {
	if isDirectAccess(n) {
		return nil, nil // no public IP: the nodes are reached directly
	}
	if !isVPCTier(n) {
		if ip := s.st.sourceNatIP(n.id); ip != nil {
			return ip, nil
		}
		return nil, fmt.Errorf("network %s has no source NAT IP", n.name)
	}
	if ip := s.clusterIP(c); ip != nil {
		return ip, nil
	}
	ip, err := s.allocPublicIP(c.accountID, n.id, n.vpcID, false)
	if err != nil {
		return nil, err
	}
	c.publicIPID = ip.id
	return ip, nil
}

// createEtcdVMs builds all etcd host names in one tight loop first (so
// several may share a suffix), then deploys the VMs. It stops at the first
// VM that cannot be deployed.
func (s *Simulator) createEtcdVMs(c *cluster, n *network) *apiError {
	prefix := etcdNodePrefix(c.name, c.id)
	names := make([]string, c.etcdNodes)
	for i := range names {
		names[i] = etcdNodeName(prefix, i+1, s.now().UnixMilli())
	}
	for _, name := range names {
		v, aerr := s.createNodeVM(c, roleEtcd, name, c.nodeOfferingID(roleEtcd), n)
		if aerr != nil {
			return aerr
		}
		s.addMapRow(c, v)
	}
	return nil
}
