package clusterops

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
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

// NameTakenError is a create refused because clusters of the same name
// exist in the owner scope (names compare as CloudStack's database does,
// ignoring case). Nothing was sent.
type NameTakenError struct {
	Name     string
	Clusters []cloudstack.Cluster
}

func (e *NameTakenError) Error() string {
	return fmt.Sprintf("a Kubernetes cluster named %q already exists in this owner scope (%s), so no other was created: a "+
		"create whose answer was lost or that was interrupted may have made it", e.Name, DescribeClusters(e.Clusters))
}

// CreatePrecheckError is a create not sent because the clusters of the
// same name could not be listed.
type CreatePrecheckError struct {
	Name string
	Err  error
}

func (e *CreatePrecheckError) Error() string {
	return fmt.Sprintf("looking for Kubernetes clusters named %q before creating one failed, so nothing was created: %v", e.Name, e.Err)
}

func (e *CreatePrecheckError) Unwrap() error { return e.Err }

// CreateNotSentError is a createKubernetesCluster request that never left
// the client (connection refused, name resolution, TLS handshake): nothing
// was created.
type CreateNotSentError struct {
	Name string
	Err  error
}

func (e *CreateNotSentError) Error() string {
	return fmt.Sprintf("createKubernetesCluster for %q was never sent, so nothing was created: %v", e.Name, e.Err)
}

func (e *CreateNotSentError) Unwrap() error { return e.Err }

// CreateRefusedError is a createKubernetesCluster that CloudStack answered
// with an error: nothing was created.
type CreateRefusedError struct {
	Name string
	Err  error
}

func (e *CreateRefusedError) Error() string {
	return fmt.Sprintf("CloudStack refused to create cluster %q: %v", e.Name, e.Err)
}

func (e *CreateRefusedError) Unwrap() error { return e.Err }

// LostCreateError is a createKubernetesCluster that was sent and not
// answered, after which no cluster could be proven to be the one it made.
// The create was not sent again.
type LostCreateError struct {
	Name string
	// Err is the create call's error.
	Err error
	// LookupErr is set when the clusters could not be listed.
	LookupErr error
	// Matching are new clusters that match every create parameter, when
	// there are several.
	Matching []cloudstack.Cluster
	// Others are new clusters of the same name that differ.
	Others []Candidate
}

// Candidate is a cluster that may be the one a lost create made, and how
// it differs from the create's parameters.
type Candidate struct {
	Cluster  cloudstack.Cluster
	Mismatch []string
}

func (e *LostCreateError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "createKubernetesCluster for %q got no answer from CloudStack (%v), and ", e.Name, e.Err)
	switch {
	case e.LookupErr != nil:
		fmt.Fprintf(&b, "looking for the cluster it may have made failed too: %v", e.LookupErr)
	case len(e.Matching) > 1:
		fmt.Fprintf(&b, "%d new clusters named %q match every parameter of the create (%s), so which one it made cannot be told",
			len(e.Matching), e.Name, DescribeClusters(e.Matching))
	case len(e.Others) > 0:
		fmt.Fprintf(&b, "the new clusters named %q differ from the create's parameters, so none is adopted:", e.Name)
		for _, c := range e.Others {
			fmt.Fprintf(&b, " %s (%s);", describeCluster(c.Cluster), strings.Join(c.Mismatch, ", "))
		}
	default:
		fmt.Fprintf(&b, "no cluster named %q appeared that was not there before, so the request most likely never reached "+
			"CloudStack (a slow server may still add it)", e.Name)
	}
	b.WriteString(". The create was not sent again")
	return b.String()
}

func (e *LostCreateError) Unwrap() error { return e.Err }

// Candidates are the clusters a user may want to import: the matching
// ones, then the others.
func (e *LostCreateError) Candidates() []cloudstack.Cluster {
	out := append([]cloudstack.Cluster(nil), e.Matching...)
	for _, c := range e.Others {
		out = append(out, c.Cluster)
	}
	return out
}

// CreateFailedError is a create whose cluster failed: its job failed
// (jobstatus 2), or the cluster was found in Error or Alert.
type CreateFailedError struct {
	ClusterID string
	// State is the cluster's state as read to confirm the failure; empty
	// when it could not be read.
	State string
	Err   error
	// Deleted: the failed cluster was read, found failed and deleted.
	Deleted bool
	// DeleteErr is why deleting it failed.
	DeleteErr error
	// Gone: the cluster no longer exists.
	Gone bool
	// ReadErr is why the cluster could not be read to confirm the failure
	// (then it was not deleted).
	ReadErr error
	// CutShort: the caller's deadline or cancellation ended the wait before
	// the failure was seen, so no delete was started.
	CutShort bool
	// Report is what the delete did (rules it removed or could not).
	Report Report
}

func (e *CreateFailedError) Error() string {
	msg := fmt.Sprintf("creating cluster %s failed: %v", e.ClusterID, e.Err)
	if e.State != "" {
		msg += fmt.Sprintf(" (the cluster is in state %s)", e.State)
	}
	return msg
}

func (e *CreateFailedError) Unwrap() error { return e.Err }

// Kept reports whether the failed cluster still exists.
func (e *CreateFailedError) Kept() bool { return !e.Deleted && !e.Gone }

// StuckError is a cluster that CloudStack left in the middle of an
// operation: its state is transitional, and no job of it is pending. A job
// that throws past its worker's transitions leaves the cluster so (4.21.0
// to 4.22.0.x: a scale that meets a TCP firewall rule without ports stays
// in Scaling; autoscaleCluster's failures always do), and so does a
// management server that stops while a job runs. CloudStack refuses to
// scale, upgrade or delete a cluster in such a state (a delete excepted in
// Destroying), so waiting for it never ends. Its message says, state by
// state, what moves the cluster on (stuckRemedy).
type StuckError struct {
	ClusterID, State string
}

func (e *StuckError) Error() string {
	return fmt.Sprintf("Kubernetes cluster %s is in %s and no CloudStack job of it is running (listAsyncJobs, as these "+
		"credentials see the jobs): a job that failed or was cut short left it there, and waiting does not move it on. "+
		"%s. If a job of another account is running on it, wait for that job instead", e.ClusterID, e.State,
		stuckRemedy(e.ClusterID, e.State))
}

// Stoppable reports whether a stop ends the cluster's stuck state.
func (e *StuckError) Stoppable() bool { return stoppable(e.State) }

// StepError is an update step that failed, after the steps before it took
// effect.
type StepError struct {
	// Step names the step, e.g. "Upgrading cluster X to Kubernetes version Y".
	Step string
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("%s: %s", e.Step, e.Err) }

func (e *StepError) Unwrap() error { return e.Err }

// LookupError is a look-up that found no entry or more than one. It lists
// what it found, sorted, since CloudStack returns lists in no promised order.
type LookupError struct {
	// Kind is what was looked up, such as "zone".
	Kind string
	// Match is the query.
	Match NameMatch
	// Scope narrows the query in words, such as "in zone z1"; may be "".
	Scope string
	// Matches are "name (id)" of every entry found, sorted; empty when none.
	Matches []string
	// Others are "name (id)" of the entries visible in the scope that did
	// not match, sorted, to help fix a typo; only when nothing matched.
	Others []string
}

// othersShown bounds the entries a not-found error lists.
const othersShown = 25

func (e *LookupError) Error() string {
	where := ""
	if e.Scope != "" {
		where = " " + e.Scope
	}
	if len(e.Matches) > 1 {
		return fmt.Sprintf("%d %ss%s %s: %s. CloudStack does not keep names unique: use a narrower match or the id",
			len(e.Matches), e.Kind, where, e.Match.phrase(true), strings.Join(e.Matches, ", "))
	}
	msg := fmt.Sprintf("no %s%s visible to the caller %s", e.Kind, where, e.Match.phrase(false))
	switch n := len(e.Others); {
	case n == 0:
		return msg + "; none is visible there at all"
	case n > othersShown:
		return fmt.Sprintf("%s. Visible there: %s and %d more", msg, strings.Join(e.Others[:othersShown], ", "), n-othersShown)
	default:
		return fmt.Sprintf("%s. Visible there: %s", msg, strings.Join(e.Others, ", "))
	}
}

// Ambiguous reports whether the look-up found more than one entry.
func (e *LookupError) Ambiguous() bool { return len(e.Matches) > 1 }

// VersionChoiceError is a selection that found several usable versions
// and so cannot pick one: by prefix or newest, or by an exact semantic
// version or name that several versions share.
type VersionChoiceError struct {
	// Candidates are "name (semantic version, id)", newest first (sorted
	// for an exact match).
	Candidates []string
	// Newest: the candidates share the newest semantic version, so asking
	// for the newest cannot tell them apart either.
	Newest bool
	// Exact: the candidates share the exact semantic version or name asked
	// for (CloudStack keeps neither unique), so only the id tells them apart.
	Exact bool
}

func (e *VersionChoiceError) Error() string {
	what := "usable Kubernetes versions match"
	if e.Newest {
		what = "usable Kubernetes versions share the newest semantic version"
	}
	msg := fmt.Sprintf("%d %s: %s", len(e.Candidates), what, strings.Join(e.Candidates, ", "))
	if e.Exact {
		msg += "; CloudStack keeps neither names nor semantic versions unique, so only the id tells them apart"
	}
	return msg
}

// ListError is a list call that failed, as opposed to a lookup that found
// nothing.
type ListError struct {
	What string
	Err  error
}

func (e *ListError) Error() string { return fmt.Sprintf("listing %s failed: %s", e.What, e.Err) }

func (e *ListError) Unwrap() error { return e.Err }

// PlannedWritesError is a scale whose call would now write other offering
// columns than the plan showed: the workers' offering changed since the
// plan. Nothing was changed.
type PlannedWritesError struct {
	ClusterID string
	Planned   OfferingWrites
	Now       OfferingWrites
}

func (e *PlannedWritesError) Error() string {
	var diffs []string
	for _, role := range slices.Sorted(maps.Keys(e.Planned)) {
		if e.Planned[role] != e.Now[role] {
			diffs = append(diffs, fmt.Sprintf("the %s offering %q (planned %q)", role, e.Now[role], e.Planned[role]))
		}
	}
	return fmt.Sprintf("scaling Kubernetes cluster %s: the scale would now record %s, because the nodes' offerings "+
		"changed since the plan; nothing was changed, plan again", e.ClusterID, strings.Join(diffs, ", "))
}
