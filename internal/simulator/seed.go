package simulator

import (
	"encoding/base64"
	"fmt"
	"maps"
	"strings"

	"golang.org/x/crypto/ssh"
)

// Names of seeded objects.
const (
	seedKeypairName             = "cks-key"
	seedZoneName                = "sim-zone-1"
	seedAdminAccount            = "admin"
	seedTenantAccount           = "tenant"
	seedProjectName             = "cks-project"
	cksNetworkOfferingName      = "DefaultNetworkOfferingforKubernetesService"
	vpcTierOfferingName         = "DefaultIsolatedNetworkOfferingForVpcNetworks"
	aclDefaultAllow             = "default_allow"
	aclDefaultDeny              = "default_deny"
	seedACLName                 = "sim-vpc-acl"
	vpcTierConserveOfferingName = "sim-vpc-tier-conserve-offering"
	systemVMTemplateName        = "SystemVM Template (KVM)"
	cksNodeTemplateName         = "CKS node template (KVM)"
	plainTemplateName           = "Debian 12 (KVM)"
	cniConfigName               = "calico-cni"
	offeringSmallName           = "cks-small"
	offeringMediumName          = "cks-medium"
	offeringLargeName           = "cks-large"
	isolatedNetworkName         = "sim-isolated-network"
	vpcName                     = "sim-vpc"
	vpcTierName                 = "sim-vpc-tier"
	vpcDenyTierName             = "sim-vpc-tier-deny"
)

// SeededNames lists, for help texts, the names of what every simulator
// seeds at start, which the look-up data sources take (cks_zone,
// cks_service_offering, cks_kubernetes_version, cks_network, cks_project).
// The JSON line a simulator prints on start gives each one's id beside its
// name.
func SeededNames() []string {
	var versions, disabled []string
	for _, v := range seedVersions {
		if v.enabled {
			versions = append(versions, "v"+v.semver)
		} else {
			disabled = append(disabled, "v"+v.semver)
		}
	}
	return []string{
		"zone " + seedZoneName,
		fmt.Sprintf("service offerings %s (the default), %s, %s", offeringMediumName, offeringLargeName, offeringSmallName),
		fmt.Sprintf("Kubernetes versions %s (%s disabled)", strings.Join(versions, ", "), strings.Join(disabled, ", ")),
		fmt.Sprintf("networks %s (isolated), %s and %s (tiers of VPC %s), %s (shared)", isolatedNetworkName, vpcTierName,
			vpcDenyTierName, vpcName, sharedNetworkName),
		"key pair " + seedKeypairName,
		"project " + seedProjectName,
	}
}

// seedCNIConfig is the content of the seeded CNI configuration.
const seedCNIConfig = `#cloud-config
write_files:
- path: /etc/cni/calico.yaml
  content: |
    # Calico, as the binaries ISO ships it
`

// seedVersions are the Kubernetes versions registered at start.
var seedVersions = []struct {
	semver  string
	enabled bool
}{
	{"1.32.9", true},
	{"1.33.13", true},
	{"1.34.2", true},
	{"1.34.4", true},
	{"1.35.0", false},
}

// seed creates the zone, offerings, versions, accounts, key pairs, networks
// and the VPC. Callers hold s.mu.
func (s *Simulator) seed() {
	st := s.st
	now := s.now()
	ids := &st.seedIDs

	root := &domain{internalID: st.nextID("domain"), id: s.newUUID(), name: "ROOT", path: "ROOT", created: now}
	st.domains = append(st.domains, root)
	ids.rootDomain = root.id

	admin := s.seedAccount(seedAdminAccount, accountTypeRootAdmin, "Admin")
	admin.isDefault = true
	tenant := s.seedAccount(seedTenantAccount, accountTypeUser, "User")
	ids.adminAccount, ids.tenantAccount = admin.id, tenant.id
	ids.adminUser = st.userOfAccount(admin.id).id
	ids.tenantUser = st.userOfAccount(tenant.id).id

	prjAccount := &account{internalID: st.nextID("account"), id: s.newUUID(),
		name: "PrjAcct-" + seedProjectName + "-1", domainID: root.id, accountType: accountTypeProject,
		roleType: "User", created: now}
	prj := &project{internalID: st.nextID("project"), id: s.newUUID(), name: seedProjectName,
		displayText: "CKS simulator project", domainID: root.id, accountID: prjAccount.id,
		ownerAccountID: tenant.id, created: now}
	prjAccount.projectID = prj.id
	st.accounts = append(st.accounts, prjAccount)
	st.projects = append(st.projects, prj)
	ids.project = prj.id

	z := &zone{internalID: st.nextID("zone"), id: s.newUUID(), name: seedZoneName, created: now}
	st.zones = append(st.zones, z)
	ids.zone = z.id
	st.publicNet, st.physNetID = s.newUUID(), s.newUUID()
	st.hostIDs = []string{s.newUUID(), s.newUUID()}
	st.hostNames = []string{"sim-kvm-1", "sim-kvm-2"}

	tpl := &template{internalID: st.nextID("template"), id: s.newUUID(), name: systemVMTemplateName,
		displayText: systemVMTemplateName, created: now}
	st.templates = append(st.templates, tpl)
	ids.systemVMTemplate = tpl.id
	ids.guestOS = s.newUUID()

	ids.offeringSmall = s.seedOffering(offeringSmallName, "CKS small (too small for CKS): 1 vCPU, 1 GB", 1, 1024)
	ids.offeringMedium = s.seedOffering(offeringMediumName, "CKS medium: 2 vCPU, 4 GB", 2, 4096)
	ids.offeringLarge = s.seedOffering(offeringLargeName, "CKS large: 4 vCPU, 8 GB", 4, 8192)

	ids.versions, ids.disabledVersions = map[string]string{}, map[string]string{}
	for _, sv := range seedVersions {
		v := &k8sVersion{internalID: st.nextID("version"), id: s.newUUID(), name: "v" + sv.semver,
			semver: sv.semver, state: "Enabled", minCPU: 2, minMemory: 2048, supportsHA: true,
			supportsAutoscaling: true, created: now, zoneID: z.id, arch: "x86_64"}
		// Downloaded before the simulator started.
		v.iso = &binariesISO{internalID: st.nextID("iso"), id: s.newUUID(), name: v.name + "-Kubernetes-Binaries-ISO",
			url: "https://download.cloudstack.org/cks/setup-" + sv.semver + ".iso", zoneID: z.id, state: isoReady,
			downloadState: downloadDone, percent: 100, created: now}
		st.isos = append(st.isos, v.iso)
		if !sv.enabled {
			v.state = "Disabled"
			ids.disabledVersions[sv.semver] = v.id
		} else {
			ids.versions[sv.semver] = v.id
		}
		st.versions = append(st.versions, v)
	}
	ids.defaultVersionKey = "1.33.13"

	for _, a := range []*account{admin, tenant, prjAccount} {
		s.seedKeypair(a.id, seedKeypairName, s.keyPub)
	}

	cksOffer := &networkOffering{internalID: st.nextID("netoffering"), id: s.newUUID(), name: cksNetworkOfferingName,
		displayText: "Network Offering used for CloudStack Kubernetes service", conserveMode: true}
	tierOffer := &networkOffering{internalID: st.nextID("netoffering"), id: s.newUUID(), name: vpcTierOfferingName,
		displayText: "Offering for Isolated VPC networks with Source Nat service enabled", forVPC: true}
	st.netOffers = append(st.netOffers, cksOffer, tierOffer)
	ids.networkOffering, ids.vpcTierOffering = cksOffer.id, tierOffer.id

	// The global default lists have the fixed ids NetworkACL.DEFAULT_DENY
	// (1) and DEFAULT_ALLOW (2).
	allow := &networkACL{internalID: aclDefaultAllowID, id: s.newUUID(), name: aclDefaultAllow,
		description: "Default Network ACL Allow All", forDisplay: true}
	deny := &networkACL{internalID: aclDefaultDenyID, id: s.newUUID(), name: aclDefaultDeny,
		description: "Default Network ACL Deny All", defaultDeny: true, forDisplay: true}
	st.acls = append(st.acls, allow, deny)
	st.seq["acl"] = aclDefaultAllowID

	iso := s.newNetwork(isolatedNetworkName, z.id, cksOffer.id, admin.id, "", "")
	s.implementNetwork(iso)
	ids.isolatedNetwork = iso.id

	vp := &vpc{internalID: st.nextID("vpc"), id: s.newUUID(), name: vpcName, cidr: "10.100.0.0/16",
		zoneID: z.id, accountID: admin.id, created: now}
	st.vpcs = append(st.vpcs, vp)
	ids.vpc = vp.id
	if _, err := s.allocPublicIP(admin.id, "", vp.id, true); err != nil {
		s.logf("seed VPC source NAT IP: %v", err)
	}
	tier := s.newNetwork(vpcTierName, z.id, tierOffer.id, admin.id, vp.id, allow.id)
	tier.cidr, tier.gateway = "10.100.1.0/24", "10.100.1.1"
	tier.state = netImplemented
	deniedTier := s.newNetwork(vpcDenyTierName, z.id, tierOffer.id, admin.id, vp.id, deny.id)
	deniedTier.cidr, deniedTier.gateway = "10.100.2.0/24", "10.100.2.1"
	deniedTier.state = netImplemented
	ids.vpcTier, ids.vpcDenyTier = tier.id, deniedTier.id
	// Seeded last, so that the ids seeded before keep their values.
	nodeTpl := &template{internalID: st.nextID("template"), id: s.newUUID(), name: cksNodeTemplateName,
		displayText: cksNodeTemplateName, forCks: true, created: now}
	st.templates = append(st.templates, nodeTpl)
	ids.nodeTemplate = nodeTpl.id
	cni := &userData{internalID: st.nextID("userdata"), id: s.newUUID(), name: cniConfigName, accountID: ids.adminAccount,
		content: base64.StdEncoding.EncodeToString([]byte(seedCNIConfig)), forCks: true, created: now}
	st.userData = append(st.userData, cni)
	ids.cniConfig = cni.id
	s.seedSharedNetwork(z.id)
	plain := &template{internalID: st.nextID("template"), id: s.newUUID(), name: plainTemplateName,
		displayText: plainTemplateName, created: now}
	st.templates = append(st.templates, plain)
	ids.plainTemplate = plain.id
	s.seedACLs(vp, tierOffer, allow, deny)
}

// seedACLs gives the default lists their items and seeds a custom list in
// the VPC, with an item of its own, used by two tiers: one of the
// non-conserve-mode tier offering (CKS forwards the API) and one of a
// conserve-mode offering (CKS balances the API). Seeded after everything
// else, so that the ids seeded before keep their values.
func (s *Simulator) seedACLs(vp *vpc, tierOffer *networkOffering, allow, deny *networkACL) {
	st := s.st
	for _, def := range []struct {
		acl    *networkACL
		action string
	}{{deny, aclDeny}, {allow, aclAllow}} {
		for i, traffic := range []string{aclIngress, aclEgress} {
			st.aclItems = append(st.aclItems, &networkACLItem{internalID: st.nextID("aclitem"), id: s.newUUID(),
				aclID: def.acl.id, number: i + 1, protocol: "all", cidrs: []string{"0.0.0.0/0"}, trafficType: traffic,
				action: def.action, state: aclItemActive, forDisplay: true, created: s.now()})
		}
		s.applyACL(def.acl.id)
	}
	custom := &networkACL{internalID: st.nextID("acl"), id: s.newUUID(), name: seedACLName,
		description: "CKS simulator tier ACL", vpcID: vp.id, forDisplay: true}
	st.acls = append(st.acls, custom)
	web := 443
	if _, err := s.createACLItem(custom, aclItemSpec{protocol: "tcp", start: &web, end: &web, trafficType: aclIngress,
		action: aclAllow, reason: "web", forDisplay: true}); err != nil {
		s.logf("seed ACL item: %v", err)
	}
	s.applyACL(custom.id)
	conserve := &networkOffering{internalID: st.nextID("netoffering"), id: s.newUUID(), name: vpcTierConserveOfferingName,
		displayText: "Offering for VPC tiers with conserve mode", conserveMode: true, forVPC: true}
	st.netOffers = append(st.netOffers, conserve)
	for i, t := range []struct {
		name  string
		offer *networkOffering
		id    *string
	}{{"sim-vpc-tier-acl", tierOffer, &st.seedIDs.vpcACLTier}, {"sim-vpc-tier-acl-lb", conserve, &st.seedIDs.vpcACLTierLB}} {
		n := s.newNetwork(t.name, vp.zoneID, t.offer.id, vp.accountID, vp.id, custom.id)
		n.cidr, n.gateway = fmt.Sprintf("10.100.%d.0/24", 3+i), fmt.Sprintf("10.100.%d.1", 3+i)
		n.state = netImplemented
		*t.id = n.id
	}
	st.seedIDs.vpcACL = custom.id
}

func (s *Simulator) seedAccount(name string, accountType int, roleType string) *account {
	st := s.st
	now := s.now()
	a := &account{internalID: st.nextID("account"), id: s.newUUID(), name: name,
		domainID: st.seedIDs.rootDomain, accountType: accountType, roleType: roleType, created: now}
	u := &user{internalID: st.nextID("user"), id: s.newUUID(), username: name, accountID: a.id,
		apiKey: s.newSecretString(), secretKey: s.newSecretString(), created: now}
	st.accounts = append(st.accounts, a)
	st.users = append(st.users, u)
	return a
}

func (s *Simulator) seedOffering(name, display string, cpu, memory int) string {
	o := &serviceOffering{internalID: s.st.nextID("offering"), id: s.newUUID(), name: name,
		displayText: display, cpu: cpu, cpuSpeed: 1000, memory: memory, created: s.now()}
	s.st.offerings = append(s.st.offerings, o)
	return o.id
}

func (s *Simulator) seedKeypair(accountID, name string, pub ssh.PublicKey) {
	s.st.keypairs = append(s.st.keypairs, &keyPair{internalID: s.st.nextID("keypair"), id: s.newUUID(),
		name: name, accountID: accountID, fingerprint: ssh.FingerprintLegacyMD5(pub), pub: pub, created: s.now()})
}

// infoLocked builds Info. Callers hold s.mu.
func (s *Simulator) infoLocked(apiURL, adminURL, keyFile string) Info {
	ids := s.st.seedIDs
	offeringName := func(id string) string {
		return nameOf(s.st.offering(id), func(o *serviceOffering) string { return o.name })
	}
	networkName := func(id string) string { return nameOf(s.st.network(id), func(n *network) string { return n.name }) }
	admin := s.st.userOfAccount(ids.adminAccount)
	tenant := s.st.userOfAccount(ids.tenantAccount)
	return Info{
		APIURL:                     apiURL,
		APIKey:                     admin.apiKey,
		SecretKey:                  admin.secretKey,
		AdminURL:                   adminURL,
		ZoneID:                     ids.zone,
		ServiceOfferingID:          ids.offeringMedium,
		KubernetesVersions:         maps.Clone(ids.versions),
		Keypair:                    seedKeypairName,
		PrivateKeyFile:             keyFile,
		Profile:                    s.profile.name,
		CloudStackVersion:          s.profile.cloudStackVersion,
		DisabledKubernetesVersions: maps.Clone(ids.disabledVersions),
		LargeServiceOfferingID:     ids.offeringLarge,
		SmallServiceOfferingID:     ids.offeringSmall,
		NetworkOfferingID:          ids.networkOffering,
		IsolatedNetworkID:          ids.isolatedNetwork,
		VPCID:                      ids.vpc,
		VPCTierNetworkID:           ids.vpcTier,
		VPCDenyTierNetworkID:       ids.vpcDenyTier,
		DomainID:                   ids.rootDomain,
		Account:                    seedAdminAccount,
		ProjectID:                  ids.project,
		TenantAccount:              seedTenantAccount,
		TenantAPIKey:               tenant.apiKey,
		TenantSecretKey:            tenant.secretKey,
		PublicIPBlock:              s.block.cidr(),
		NodeTemplateID:             ids.nodeTemplate,
		PlainTemplateID:            ids.plainTemplate,
		CNIConfigurationID:         ids.cniConfig,
		SharedNetworkID:            ids.sharedNetwork,
		SharedNetworkCIDR:          s.sharedBlock.cidr(),
		VPCACLID:                   ids.vpcACL,
		VPCACLTierNetworkID:        ids.vpcACLTier,
		VPCACLTierLBNetworkID:      ids.vpcACLTierLB,
		ZoneName:                   nameOf(s.st.zone(ids.zone), func(z *zone) string { return z.name }),
		ServiceOfferingName:        offeringName(ids.offeringMedium),
		LargeServiceOfferingName:   offeringName(ids.offeringLarge),
		SmallServiceOfferingName:   offeringName(ids.offeringSmall),
		KubernetesVersionNames:     s.versionNamesLocked(ids.versions),
		IsolatedNetworkName:        networkName(ids.isolatedNetwork),
		VPCTierNetworkName:         networkName(ids.vpcTier),
		SharedNetworkName:          networkName(ids.sharedNetwork),
		ProjectName:                nameOf(s.st.project(ids.project), func(p *project) string { return p.name }),
	}
}

// nameOf is the name of a seeded object, "" once it is gone.
func nameOf[T any](v *T, name func(*T) string) string {
	if v == nil {
		return ""
	}
	return name(v)
}

// versionNamesLocked names the versions of an id map by semantic version.
// Callers hold s.mu.
func (s *Simulator) versionNamesLocked(ids map[string]string) map[string]string {
	out := make(map[string]string, len(ids))
	for semver, id := range ids {
		out[semver] = nameOf(s.st.version(id), func(v *k8sVersion) string { return v.name })
	}
	return out
}
