package naming

import "strings"

// NamePrefixes are the cluster prefixes a VM name can carry, so that a
// fleet can index its VMs once and give each cluster only those that may be
// its nodes: a control or worker name <prefix>-control-<hex> or
// <prefix>-node-<hex> carries <prefix>, an etcd name <prefix>-<n>-<hex>
// carries <prefix>. Every name a Matcher accepts carries one of the
// Matcher's prefixes; a name that is no node name carries none.
func NamePrefixes(vmName string) []string {
	const suffix = 1 + 11 // "-" and the hex creation time
	if len(vmName) <= suffix || vmName[len(vmName)-suffix] != '-' {
		return nil
	}
	rest := vmName[:len(vmName)-suffix]
	var out []string
	for _, role := range []string{"-control", "-node"} {
		if p, ok := strings.CutSuffix(rest, role); ok && p != "" {
			out = append(out, p)
		}
	}
	if i := strings.LastIndexByte(rest, '-'); i > 0 && isDigits(rest[i+1:]) {
		out = append(out, rest[:i])
	}
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
