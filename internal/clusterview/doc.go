// Package clusterview is the one reading of CloudStack's records about a
// CKS cluster, for both engines: the one that changes clusters (clusterops)
// and the one that checks them for drift (driftcheck). It turns records
// into what they mean:
//
//   - the cluster's VM map, each VM with its role (MapVMs, Roles), and the
//     map as the rule planner sees it (LayoutNodes, Layout, MapWorkers);
//   - where CKS keeps the cluster's rules: the network kind (NetworkKind),
//     a VPC tier's ACL list and API path (TierOf), the cluster's public IP
//     (SourceNATAddress, AddressID, ForwardedAddressID, EndpointHost);
//   - the rules: firewall, forward and load balancer records as rules.Rule
//     values, those on their way out left aside (FirewallRules,
//     ForwardRules, LoadBalancerRules), placed on the cluster's IP with the
//     etcd SSH start port the forwards show (ReadRules); a tier's network
//     ACL list and items (ReadTierACL, TierACL, ACLItems);
//   - what the server's version does with them (ServerFor,
//     PortlessRuleBreaksScale, LacksCSI, ExternalPortCountsEtcd).
//
// The readings are pure: they keep no state and make no API call of their
// own. Where a reading needs a record only sometimes (the server's version
// when a port-less rule exists, a list's items unless it is
// default_allow), the engine passes the call, so that the decision is made
// here and the engine's own metering and context stay its own.
//
// An engine reads no field of a rule, ACL, network, public IP or VM map
// record beyond its identity: TestEnginesReadNoRecordThemselves fails when
// one does, so that the next fact about CloudStack is taught to this one
// reading, not to one engine.
package clusterview
