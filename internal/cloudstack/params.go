package cloudstack

// Ownership narrows list calls and sets the owner of created objects.
type Ownership struct {
	Account   string
	DomainID  string
	ProjectID string
}

// ListVMsParams filters listVirtualMachines. Zero values are not sent.
type ListVMsParams struct {
	Ownership
	ZoneID    string
	NetworkID string
	Keyword   string
	IDs       []string
	ListAll   bool
}

// CreateFirewallRuleParams are createFirewallRule's parameters.
type CreateFirewallRuleParams struct {
	IPAddressID string
	Protocol    string
	StartPort   int
	EndPort     int
	CIDRList    []string
}

// CreatePortForwardingRuleParams are createPortForwardingRule's parameters.
type CreatePortForwardingRuleParams struct {
	IPAddressID      string
	Protocol         string
	PublicPort       int
	PublicEndPort    int
	PrivatePort      int
	PrivateEndPort   int
	VirtualMachineID string
	NetworkID        string
	// CIDRList limits the sources the forward accepts; empty means any
	// (CKS's own forwards have none).
	CIDRList []string
	// OpenFirewall is always sent explicitly; CKS-style forwards use false.
	OpenFirewall bool
}

// ListRulesParams filters listFirewallRules, listPortForwardingRules and
// listLoadBalancerRules. Zero values are not sent.
type ListRulesParams struct {
	IPAddressID string
	NetworkID   string
	ID          string
	// ProjectID lists a project's rules, which CloudStack leaves out of
	// account-scoped lists (listall included); "-1" means every project.
	ProjectID string
	ListAll   bool
}

// ListPublicIPParams filters listPublicIpAddresses. Zero values are not sent.
type ListPublicIPParams struct {
	ID                  string
	IPAddress           string
	AssociatedNetworkID string
	VPCID               string
	IsSourceNat         *bool
	// ProjectID lists a project's addresses (see ListRulesParams).
	ProjectID string
	ListAll   bool
}

// ListNetworksParams filters listNetworks. Zero values are not sent;
// listall is always sent so that an admin finds other accounts' networks.
type ListNetworksParams struct {
	ID string
	// ProjectID lists a project's networks (see ListRulesParams).
	ProjectID string
	// Keyword is a LIKE %keyword% match on the name, on every release
	// (NetworkServiceImpl.createNetworkSearchCriteria); the name parameter
	// came later. Callers match names exactly themselves.
	Keyword string
	ZoneID  string
	// VPCID lists the tiers of a VPC.
	VPCID string
}

// ListServiceOfferingsParams filters listServiceOfferings. Zero values are
// not sent.
type ListServiceOfferingsParams struct {
	// Name is an EQ match in SQL, so case-insensitive under CloudStack's
	// database collation (QueryManagerImpl.searchForServiceOfferingIdsAndCount).
	Name string
	// ZoneID keeps the offerings usable in the zone: those restricted to it
	// and those restricted to no zone.
	ZoneID string
}

// ListProjectsParams filters listProjects, which is always sent with
// listall so that an admin sees every project; a user sees the projects
// they belong to (QueryManagerImpl.listProjectsInternal).
type ListProjectsParams struct {
	// Name is an EQ match in SQL (case-insensitive, as above).
	Name string
}
