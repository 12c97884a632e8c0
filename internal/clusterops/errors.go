package clusterops

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// OptIn names a consent the engine needs for a change; the caller maps it
// to its own setting (a Terraform attribute, a flag).
type OptIn string

// OptInMoveUserRules is Intent.MoveUserRules.
const OptInMoveUserRules OptIn = "move_user_rules"

// HazardError is returned when a scale would hit rules the engine may not
// change: user rules that CloudStack's scale would revoke instead of the
// node SSH range (#14159), user forwards its cleanup would delete, a rule
// without ports that breaks the scale of 4.21.0 through 4.22.0.x, or rules
// no layout makes safe. Nothing was changed when it is returned.
type HazardError struct {
	ClusterID string
	// Hazards each have an explanation that names the rule.
	Hazards []rules.Hazard
	// OptIn is the consent that would let the engine move the rules out of
	// the scale's way; empty when no consent can (the user must act).
	OptIn OptIn
}

// Error names every rule, explains the hazard and the way out. It does
// not name the opt-in's setting, which only the caller knows.
func (e *HazardError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scaling Kubernetes cluster %s is unsafe: ", e.ClusterID)
	for i, h := range e.Hazards {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(h.Explanation)
	}
	b.WriteString(". ")
	if e.OptIn != "" {
		b.WriteString("User rules are never changed without consent: with it, the provider deletes them before the scale and " +
			"re-creates them with the same protocol, ports and CIDRs after it (they are briefly absent); or move or delete them yourself")
	} else {
		b.WriteString("Move or delete these rules yourself before scaling")
	}
	return b.String()
}

// AlertError is a cluster in Alert whose VM map agrees with its size:
// CloudStack refuses to scale or upgrade it until its state scanner, which
// runs every 30 seconds, has returned it to Running (it does so once every
// VM runs, every node is Ready and SSH through 2222 and the API answer).
type AlertError struct {
	ClusterID string
	// Waited is how long Update waited for the scanner, 0 at plan time.
	Waited time.Duration
}

func (e *AlertError) Error() string {
	if e.Waited > 0 {
		return fmt.Sprintf("Kubernetes cluster %s stayed in Alert for %s: CloudStack scales and upgrades only Running clusters, and "+
			"its state scanner returns a cluster from Alert only when every VM runs, every Kubernetes node is Ready and SSH "+
			"through port 2222 and the API on 6443 answer; the drift data source (cks_cluster_drift) shows what is wrong",
			e.ClusterID, e.Waited.Round(time.Second))
	}
	return fmt.Sprintf("Kubernetes cluster %s is in Alert: CloudStack scales and upgrades only Running clusters; its state "+
		"scanner usually returns a healthy cluster to Running within 30 seconds, and apply waits up to %s for that",
		e.ClusterID, alertWait)
}

// CIDRFamilyError is a list of source CIDRs of another address family than
// the cluster's public IP, on which CloudStack would create the SSH rules:
// the rules would admit no client, and SSH would close. Nothing was
// changed.
type CIDRFamilyError struct {
	IP    string
	CIDRs []string
}

func (e *CIDRFamilyError) Error() string {
	family := "IPv4"
	if a, err := netip.ParseAddr(e.IP); err == nil && a.Is6() {
		family = "IPv6"
	}
	return fmt.Sprintf("the rules are on the cluster's public IP %s, an %s address, so source CIDRs %s of the other "+
		"address family would admit no client; nothing was changed", e.IP, family, strings.Join(e.CIDRs, ", "))
}

// CheckCIDRFamily returns a *CIDRFamilyError when a CIDR is of another
// address family than ip; it says nothing when ip is not an address.
func CheckCIDRFamily(ip string, cidrs []string) error {
	addr, _ := netip.ParseAddr(strings.TrimSpace(ip))
	if !addr.IsValid() {
		return nil
	}
	var wrong []string
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(strings.TrimSpace(c)); err == nil && p.Addr().Is4() != addr.Unmap().Is4() {
			wrong = append(wrong, c)
		}
	}
	if len(wrong) > 0 {
		return &CIDRFamilyError{IP: ip, CIDRs: wrong}
	}
	return nil
}
