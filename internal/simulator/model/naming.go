package model

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Node VM naming as CKS does it (KubernetesClusterResourceModifierActionWorker).
// The simulator models the server side on its own, independently of the
// provider's naming package.

const (
	maxClusterPrefixLength = 43
	maxEtcdPrefixLength    = 40
)

var (
	hostLabelRE     = regexp.MustCompile(`^[a-zA-Z0-9-]+$`)
	notLowerLabelRE = regexp.MustCompile(`[^a-z0-9-]`)
	notLabelRE      = regexp.MustCompile(`[^a-zA-Z0-9-]`)
)

// verifyHostNameLabel is NetUtils.verifyDomainNameLabel(label, true).
func verifyHostNameLabel(label string) bool {
	if len(label) < 1 || len(label) > 63 || !hostLabelRE.MatchString(label) {
		return false
	}
	if strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
		return false
	}
	return label[0] < '0' || label[0] > '9'
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ClusterNodePrefix is
// KubernetesClusterResourceModifierActionWorker.getKubernetesClusterNodeNamePrefix.
func ClusterNodePrefix(name, uuid string) string {
	p := strings.ToLower(name)
	if verifyHostNameLabel(p) {
		return truncate(p, maxClusterPrefixLength)
	}
	p = notLowerLabelRE.ReplaceAllString(p, "")
	if p == "" {
		p = uuid
	}
	return truncate("k8s-"+p, maxClusterPrefixLength)
}

// EtcdNodePrefix is getEtcdNodeNameForCluster: case kept, no k8s-,
// "-etcd" appended, then cut to 40 characters.
func EtcdNodePrefix(name, uuid string) string {
	p := name
	if !verifyHostNameLabel(p) {
		p = notLabelRE.ReplaceAllString(p, "")
		if p == "" {
			p = uuid
		}
	}
	return truncate(p+"-etcd", maxEtcdPrefixLength)
}

// HexMillis is Long.toHexString(millis).
func HexMillis(ms int64) string { return strconv.FormatInt(ms, 16) }

func ControlNodeName(prefix string, ms int64) string {
	return fmt.Sprintf("%s-control-%s", prefix, HexMillis(ms))
}

func WorkerNodeName(prefix string, ms int64) string {
	return fmt.Sprintf("%s-node-%s", prefix, HexMillis(ms))
}

// EtcdNodeName uses the 1-based etcd index.
func EtcdNodeName(etcdPrefix string, index int, ms int64) string {
	return fmt.Sprintf("%s-%d-%s", etcdPrefix, index, HexMillis(ms))
}
