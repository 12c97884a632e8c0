package endpoints

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The JSON shapes below are the small subset of the Kubernetes API types the
// simulator serves. Field names follow k8s.io/api so that kubectl and
// client-go decode them as they decode the real thing.

type typeMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type listMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

type objectMeta struct {
	Name              string            `json:"name"`
	UID               string            `json:"uid"`
	ResourceVersion   string            `json:"resourceVersion"`
	CreationTimestamp string            `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

type kubeNode struct {
	typeMeta
	Metadata objectMeta     `json:"metadata"`
	Spec     nodeSpec       `json:"spec"`
	Status   nodeStatusJSON `json:"status"`
}

type nodeSpec struct {
	PodCIDR string      `json:"podCIDR,omitempty"`
	Taints  []nodeTaint `json:"taints,omitempty"`
}

type nodeTaint struct {
	Key       string `json:"key"`
	Effect    string `json:"effect"`
	TimeAdded string `json:"timeAdded,omitempty"`
}

type nodeStatusJSON struct {
	Conditions []nodeCondition `json:"conditions"`
	Addresses  []nodeAddress   `json:"addresses"`
	NodeInfo   nodeSystemInfo  `json:"nodeInfo"`
}

type nodeCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastHeartbeatTime  string `json:"lastHeartbeatTime"`
	LastTransitionTime string `json:"lastTransitionTime"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
}

type nodeAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

type nodeSystemInfo struct {
	MachineID               string `json:"machineID"`
	SystemUUID              string `json:"systemUUID"`
	BootID                  string `json:"bootID"`
	KernelVersion           string `json:"kernelVersion"`
	OSImage                 string `json:"osImage"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	KubeletVersion          string `json:"kubeletVersion"`
	KubeProxyVersion        string `json:"kubeProxyVersion"`
	OperatingSystem         string `json:"operatingSystem"`
	Architecture            string `json:"architecture"`
}

type nodeList struct {
	typeMeta
	Metadata listMeta   `json:"metadata"`
	Items    []kubeNode `json:"items"`
}

type partialObjectMetadata struct {
	typeMeta
	Metadata objectMeta `json:"metadata"`
}

type table struct {
	typeMeta
	Metadata          listMeta      `json:"metadata"`
	ColumnDefinitions []tableColumn `json:"columnDefinitions"`
	Rows              []tableRow    `json:"rows"`
}

type tableColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int    `json:"priority"`
}

type tableRow struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object,omitempty"`
}

type status struct {
	typeMeta
	Metadata listMeta       `json:"metadata"`
	Status   string         `json:"status"`
	Message  string         `json:"message"`
	Reason   string         `json:"reason,omitempty"`
	Details  *statusDetails `json:"details,omitempty"`
	Code     int            `json:"code"`
}

type statusDetails struct {
	Name string `json:"name,omitempty"`
	Kind string `json:"kind,omitempty"`
}

type apiVersions struct {
	typeMeta
	Versions                   []string        `json:"versions"`
	ServerAddressByClientCIDRs []serverAddress `json:"serverAddressByClientCIDRs"`
}

type serverAddress struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type apiGroupList struct {
	typeMeta
	Groups []any `json:"groups"`
}

type apiResourceList struct {
	typeMeta
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
}

type versionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// nodeResourceVersion is constant: the simulator has no watch, and a stable
// value keeps repeated reads byte-identical.
const nodeResourceVersion = "1"

// stableUUID derives a UUID-shaped identifier from parts, so a node keeps
// its uid for as long as its cluster and name do.
func stableUUID(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x50 // version 5 (name-based, SHA-1)
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// toKubeNode renders n as the API server would return it.
func toKubeNode(clusterID string, n Node, now time.Time) kubeNode {
	labels := map[string]string{
		"beta.kubernetes.io/arch": nodeArch,
		"beta.kubernetes.io/os":   nodeOS,
		"kubernetes.io/arch":      nodeArch,
		"kubernetes.io/hostname":  n.Name,
		"kubernetes.io/os":        nodeOS,
	}
	var taints []nodeTaint
	if n.Control {
		labels["node-role.kubernetes.io/"+controlPlaneRole] = ""
		labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		taints = append(taints, nodeTaint{Key: "node-role.kubernetes.io/control-plane", Effect: "NoSchedule"})
	}
	created := n.Created
	if created.IsZero() {
		created = now
	}
	ready := nodeCondition{
		Type:               "Ready",
		Status:             "True",
		LastHeartbeatTime:  rfc3339(now),
		LastTransitionTime: rfc3339(created),
		Reason:             "KubeletReady",
		Message:            "kubelet is posting ready status",
	}
	if !n.Ready {
		// What the node controller writes once the kubelet stops reporting.
		ready.Status = "Unknown"
		ready.LastHeartbeatTime = rfc3339(created)
		ready.LastTransitionTime = rfc3339(now)
		ready.Reason = "NodeStatusUnknown"
		ready.Message = "Kubelet stopped posting node status."
		taints = append(taints,
			nodeTaint{Key: "node.kubernetes.io/unreachable", Effect: "NoSchedule", TimeAdded: rfc3339(now)},
			nodeTaint{Key: "node.kubernetes.io/unreachable", Effect: "NoExecute", TimeAdded: rfc3339(now)})
	}
	var addresses []nodeAddress
	if n.InternalIP != "" {
		addresses = append(addresses, nodeAddress{Type: "InternalIP", Address: n.InternalIP})
	}
	addresses = append(addresses, nodeAddress{Type: "Hostname", Address: n.Name})
	uid := stableUUID(clusterID, n.Name)
	return kubeNode{
		typeMeta: typeMeta{Kind: "Node", APIVersion: "v1"},
		Metadata: objectMeta{
			Name:              n.Name,
			UID:               uid,
			ResourceVersion:   nodeResourceVersion,
			CreationTimestamp: rfc3339(created),
			Labels:            labels,
			Annotations: map[string]string{
				"kubeadm.alpha.kubernetes.io/cri-socket":                 "unix:///run/containerd/containerd.sock",
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: nodeSpec{Taints: taints},
		Status: nodeStatusJSON{
			Conditions: []nodeCondition{ready},
			Addresses:  addresses,
			NodeInfo: nodeSystemInfo{
				MachineID:               strings.ReplaceAll(stableUUID("machine", clusterID, n.Name), "-", ""),
				SystemUUID:              stableUUID("system", clusterID, n.Name),
				BootID:                  stableUUID("boot", clusterID, n.Name),
				KernelVersion:           nodeKernelVersion,
				OSImage:                 nodeOSImage,
				ContainerRuntimeVersion: nodeContainerRuntime,
				KubeletVersion:          n.Version,
				KubeProxyVersion:        n.Version,
				OperatingSystem:         nodeOS,
				Architecture:            nodeArch,
			},
		},
	}
}

// writeNodeJSON prints nodes as `kubectl get nodes -o json` does: each node is
// the v1 Node the simulated API server returns (labels with the node roles,
// the Ready condition, the kubelet version); one named node prints alone and
// anything else as kubectl's v1 List, empty or not. Like kubectl's JSON
// printer, it goes through an unstructured map, so keys come out sorted, with
// four-space indents.
func writeNodeJSON(sb *strings.Builder, clusterID string, nodes []Node, now time.Time, single bool) error {
	if single && len(nodes) != 1 {
		return nil // kubectl prints only the NotFound error
	}
	items := make([]kubeNode, 0, len(nodes))
	for _, n := range nodes {
		items = append(items, toKubeNode(clusterID, n, now))
	}
	var obj any = map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"items":      items,
		"metadata":   map[string]any{"resourceVersion": ""},
	}
	if single {
		obj = items[0]
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var unstructured map[string]any
	if err := json.Unmarshal(raw, &unstructured); err != nil {
		return err
	}
	out, err := json.MarshalIndent(unstructured, "", "    ")
	if err != nil {
		return err
	}
	sb.Write(out)
	sb.WriteByte('\n')
	return nil
}
