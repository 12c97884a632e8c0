package cluster

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// createExtras are createKubernetesCluster's create-only inputs beyond the
// node counts and offerings: what CreateKubernetesClusterCmd reads and
// KubernetesClusterManagerImpl.createManagedKubernetesCluster stores.
type createExtras struct {
	// nodeTemplates is the raw nodetemplates map (node type as sent → template
	// id); it is resolved after the other validation, as the server does.
	nodeTemplates []map[string]string
	cniConfig     *model.UserData
	cniDetails    map[string]string
	asNumber      int64
	hasASNumber   bool
	dockerURL     string
	dockerUser    string
	// dockerPassword is stored as the detail dockerregistrypassword
	// (display=false); it is never logged, dumped or rendered.
	dockerPassword string
	externalLBIP   string
}

// parseExtras reads the extras. cniconfigurationid is a UUID parameter of
// entity UserDataResponse, so an unknown id is the API layer's 431; the
// maps are CommandType.MAP, checked later.
func (s *Workers) parseExtras(p wire.Params, req *createRequest) *wire.APIError {
	e := &req.extras
	e.nodeTemplates = p.MapEntries("nodetemplates")
	var err *wire.APIError
	if e.cniConfig, err = wire.ResolveParam(p, "cniconfigurationid", s.DB.UserDataByID); err != nil {
		return err
	}
	// CreateKubernetesClusterCmd.getCniConfigDetails: convertDetailsToMap.
	e.cniDetails = p.DetailsMap("cniconfigdetails")
	if e.asNumber, e.hasASNumber, err = p.Long("asnumber"); err != nil {
		return err
	}
	e.dockerURL, e.dockerUser = p.Str("dockerregistryurl"), p.Str("dockerregistryusername")
	e.dockerPassword = p.Str("dockerregistrypassword")
	e.externalLBIP = p.Str("externalloadbalanceripaddress")
	return nil
}

// validateExtras follows the end of
// KubernetesClusterManagerImpl.validateManagedKubernetesClusterCreateParameters:
// validateDockerRegistryParams, the external load balancer address, then
// the experimental-features check for a private registry.
func (s *Workers) validateExtras(req *createRequest) *wire.APIError {
	e := &req.extras
	if err := validateDockerRegistryParams(e.dockerUser, e.dockerPassword, e.dockerURL); err != nil {
		return err
	}
	if e.externalLBIP != "" {
		if _, perr := netip.ParseAddr(e.externalLBIP); perr != nil {
			return wire.InternalError("Invalid external load balancer IP address")
		}
		if req.network == nil {
			return wire.InternalError("externalloadbalanceripaddress parameter must be specified along with networkid parameter")
		}
		// Only a Shared, non-ROUTED network takes one (the simulator models
		// no ROUTED networks).
		if req.network.NetType != network.NetTypeShared {
			return wire.InternalError("externalloadbalanceripaddress parameter must be specified when network type is not Shared or is ROUTED network")
		}
	}
	if !s.Opts.ExperimentalFeatures && (e.dockerURL != "" || e.dockerUser != "" || e.dockerPassword != "") {
		return wire.InternalError("Private registry for the Kubernetes cluster is an experimental feature. " +
			"Use cloud.kubernetes.cluster.experimental.features.enabled configuration for enabling experimental features")
	}
	return nil
}

// validateDockerRegistryParams is the manager's method of that name: all
// three or none, and a URL java.net.URL accepts (it needs a known scheme).
func validateDockerRegistryParams(user, password, rawURL string) *wire.APIError {
	if user == "" && password == "" && rawURL == "" {
		return nil
	}
	if user == "" || password == "" || rawURL == "" {
		return wire.InternalError("All the docker private registry parameters (username, password, url) required are specified")
	}
	u, err := url.Parse(rawURL)
	if err != nil || !javaURLScheme[strings.ToLower(u.Scheme)] {
		return wire.InternalError("Invalid docker registry url specified")
	}
	return nil
}

// javaURLScheme are the protocols java.net.URL has handlers for by default.
var javaURLScheme = map[string]bool{"http": true, "https": true, "ftp": true, "file": true, "jar": true}

// resolveNodeTemplates is KubernetesServiceHelperImpl.getTemplateNodeTypeMap
// (called from createManagedKubernetesCluster after validation): each entry
// needs node and template, the node type is matched case-insensitively
// against CONTROL, WORKER, ETCD and DEFAULT, and the template must exist. The
// map keys are the upper-case type names. Its InvalidParameterValueExceptions
// are CloudRuntimeExceptions, which the create phase answers with 530.
func (s *Workers) resolveNodeTemplates(entries []map[string]string) (map[model.NodeRole]string, *wire.APIError) {
	out := map[model.NodeRole]string{}
	for _, entry := range entries {
		node, tplID := entry["node"], entry["template"]
		if node == "" || tplID == "" {
			return nil, wire.InternalError("Incomplete Node Type to template ID mapping: '%s' -> '%s'", javaNull(node), javaNull(tplID))
		}
		role := model.NodeRole(strings.ToLower(node))
		switch role {
		case model.RoleControl, model.RoleWorker, model.RoleEtcd, "default":
		default:
			return nil, wire.InternalError("The provided value '%s' for Node Type is invalid", node)
		}
		t := s.DB.Template(tplID)
		if t == nil {
			return nil, wire.InternalError("Cannot find a template with ID %s", tplID)
		}
		out[role] = t.ID
	}
	return out, nil
}

// javaNull is how String.format prints a missing map value.
func javaNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// storeExtras records the extras on the new cluster row and its details.
func storeExtras(cl *model.Cluster, req *createRequest) {
	e := req.extras
	cl.NodeTemplates = req.nodeTemplates
	if e.cniConfig != nil {
		cl.CNIConfigID = e.cniConfig.ID
	}
	if len(e.cniDetails) > 0 {
		cl.CNIDetails = e.cniDetails
	}
	if e.hasASNumber {
		n := e.asNumber
		cl.ASNumber = &n
	}
	cl.DockerURL, cl.DockerUser, cl.DockerPassword = e.dockerURL, e.dockerUser, e.dockerPassword
	// addKubernetesClusterDetails keeps the address only on a directly
	// accessed network (or for an ExternalManaged cluster).
	if network.IsDirectAccess(req.network) {
		cl.ExternalLBIP = e.externalLBIP
	}
}

// DumpTemplates keys the node templates by the upper-case node type, as
// the server's map is.
func DumpTemplates(m map[model.NodeRole]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for role, id := range m {
		out[strings.ToUpper(string(role))] = id
	}
	return out
}
