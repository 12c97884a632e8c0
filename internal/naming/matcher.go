package naming

import (
	"regexp"
	"strconv"
)

// Matcher recognises the VM names CKS gives the nodes of one cluster, with
// both the current and the pre-#10778 control/worker prefix.
type Matcher struct {
	prefix       string
	legacyPrefix string
	etcdPrefix   string
	nodeName     *regexp.Regexp
	etcdName     *regexp.Regexp
}

// NewMatcher returns a Matcher for the cluster with the given name and uuid.
func NewMatcher(name, uuid string) *Matcher {
	m := &Matcher{
		prefix:       ClusterPrefix(name, uuid),
		legacyPrefix: LegacyClusterPrefix(name, uuid),
		etcdPrefix:   EtcdPrefix(name, uuid),
	}
	prefixes := regexp.QuoteMeta(m.prefix)
	if m.legacyPrefix != m.prefix {
		prefixes += "|" + regexp.QuoteMeta(m.legacyPrefix)
	}
	m.nodeName = regexp.MustCompile(`^(?:` + prefixes + `)-(control|node)-` + hexSuffix + `$`)
	m.etcdName = regexp.MustCompile(`^` + regexp.QuoteMeta(m.etcdPrefix) + `-([1-9][0-9]*)-` + hexSuffix + `$`)
	return m
}

// Prefix returns the current control/worker prefix of the cluster.
func (m *Matcher) Prefix() string { return m.prefix }

// LegacyPrefix returns the pre-#10778 control/worker prefix of the cluster.
func (m *Matcher) LegacyPrefix() string { return m.legacyPrefix }

// EtcdPrefix returns the etcd prefix of the cluster.
func (m *Matcher) EtcdPrefix() string { return m.etcdPrefix }

// Role tells whether vmName is named as a node of this cluster, and as which
// role. Names alone cannot prove membership: cluster "a" and a cluster named
// "a-node..." can produce the same names, so check the VM map as well.
func (m *Matcher) Role(vmName string) (Role, bool) {
	if sub := m.nodeName.FindStringSubmatch(vmName); sub != nil {
		if sub[1] == "control" {
			return RoleControl, true
		}
		return RoleWorker, true
	}
	if m.etcdName.MatchString(vmName) {
		return RoleEtcd, true
	}
	return "", false
}

// EtcdIndex returns the 1-based etcd index in vmName when it is named as an
// etcd node of this cluster.
func (m *Matcher) EtcdIndex(vmName string) (int, bool) {
	sub := m.etcdName.FindStringSubmatch(vmName)
	if sub == nil {
		return 0, false
	}
	idx, err := strconv.Atoi(sub[1])
	if err != nil {
		return 0, false
	}
	return idx, true
}
