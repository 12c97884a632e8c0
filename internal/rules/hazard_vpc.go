package rules

import "fmt"

// PreflightVPC lists what a size change of a cluster on a VPC tier, by any
// client, would destroy: the user forwards of the tier that its forward
// cleanup deletes. CloudStack's scale
// (KubernetesClusterScaleWorker.scaleKubernetesClusterVpcTierRules) picks no
// firewall rule there (a VPC IP has none, so #14159's selector plays no
// part): it deletes every forward of the tier, on any of its IPs and to any
// VM, whose public start port lies in 2222 .. 2222 + N - 1, N being the
// cluster's node VMs (control, worker and external) after the scale, then
// creates the node forwards again. rules are the rules on the cluster's IP,
// networkForwards the forwards of the whole tier; nodesAfter is N.
func PreflightVPC(l Layout, rules, networkForwards []Rule, nodesAfter int) []Hazard {
	if l.Network != NetworkVPC || nodesAfter <= 0 {
		return nil
	}
	end := NodeSSHStartPort + nodesAfter - 1
	var out []Hazard
	for _, pf := range userForwardsUpTo(ownedForwards(Classify(l, rules), networkForwards), end) {
		out = append(out, Hazard{
			Kind: HazardCollateral, Owner: OwnerUser, Purpose: PurposeUser, Rule: pf, Remedy: RemedyAroundScale,
			Explanation: fmt.Sprintf("user port forward %s (%s) has its public start port in %s; a size change of the cluster "+
				"that leaves it %d node VM(s) or more (control, worker and external) deletes every port forward of the VPC tier "+
				"starting in 2222 up to the last node's port, so this one would be deleted", pf.ID, describeForward(pf),
				PortRange(NodeSSHStartPort, end), pf.StartPort-NodeSSHStartPort+1),
		})
	}
	return out
}

// NodeVMCount is the number of node VMs that get a 2222+i forward: control,
// worker and external, not etcd.
func (l Layout) NodeVMCount() int { return len(l.sshNodes()) }
