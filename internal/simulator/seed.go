package simulator

import (
	"encoding/base64"
	"fmt"
	"maps"

	"golang.org/x/crypto/ssh"
)

// Names of seeded objects.
const (
	seedKeypairName        = "cks-key"
	seedZoneName           = "sim-zone-1"
	seedAdminAccount       = "admin"
	seedTenantAccount      = "tenant"
	seedProjectName        = "cks-project"
	cksNetworkOfferingName = "DefaultNetworkOfferingforKubernetesService"
	vpcTierOfferingName    = "DefaultIsolatedNetworkOfferingForVpcNetworks"
	aclDefaultAllow        = "default_allow"
	aclDefaultDeny         = "default_deny"
	systemVMTemplateName   = "SystemVM Template (KVM)"
	cksNodeTemplateName    = "CKS node template (KVM)"
	cniConfigName          = "calico-cni"
)

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

	ids.offeringSmall = s.seedOffering("cks-small", "CKS small (too small for CKS): 1 vCPU, 1 GB", 1, 1024)
	ids.offeringMedium = s.seedOffering("cks-medium", "CKS medium: 2 vCPU, 4 GB", 2, 4096)
	ids.offeringLarge = s.seedOffering("cks-large", "CKS large: 4 vCPU, 8 GB", 4, 8192)

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

	allow := &networkACL{id: s.newUUID(), name: aclDefaultAllow, description: "Default Network ACL Allow All"}
	deny := &networkACL{id: s.newUUID(), name: aclDefaultDeny, description: "Default Network ACL Deny All", defaultDeny: true}
	st.acls = append(st.acls, allow, deny)

	iso := s.newNetwork("sim-isolated-network", z.id, cksOffer.id, admin.id, "", "")
	s.implementNetwork(iso)
	ids.isolatedNetwork = iso.id

	vp := &vpc{internalID: st.nextID("vpc"), id: s.newUUID(), name: "sim-vpc", cidr: "10.100.0.0/16",
		zoneID: z.id, accountID: admin.id, created: now}
	st.vpcs = append(st.vpcs, vp)
	ids.vpc = vp.id
	if _, err := s.allocPublicIP(admin.id, "", vp.id, true); err != nil {
		s.logf("seed VPC source NAT IP: %v", err)
	}
	tier := s.newNetwork("sim-vpc-tier", z.id, tierOffer.id, admin.id, vp.id, allow.id)
	tier.cidr, tier.gateway = "10.100.1.0/24", "10.100.1.1"
	tier.state = netImplemented
	deniedTier := s.newNetwork("sim-vpc-tier-deny", z.id, tierOffer.id, admin.id, vp.id, deny.id)
	deniedTier.cidr, deniedTier.gateway = "10.100.2.0/24", "10.100.2.1"
	deniedTier.state = netImplemented
	ids.vpcTier, ids.vpcDenyTier = tier.id, deniedTier.id
	// Seeded last, so that the ids seeded before keep their values.
	nodeTpl := &template{internalID: st.nextID("template"), id: s.newUUID(), name: cksNodeTemplateName,
		displayText: cksNodeTemplateName, created: now}
	st.templates = append(st.templates, nodeTpl)
	ids.nodeTemplate = nodeTpl.id
	cni := &userData{internalID: st.nextID("userdata"), id: s.newUUID(), name: cniConfigName, accountID: ids.adminAccount,
		content: base64.StdEncoding.EncodeToString([]byte(seedCNIConfig)), forCks: true, created: now}
	st.userData = append(st.userData, cni)
	ids.cniConfig = cni.id
	s.seedSharedNetwork(z.id)
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
		CNIConfigurationID:         ids.cniConfig,
		SharedNetworkID:            ids.sharedNetwork,
		SharedNetworkCIDR:          s.sharedBlock.cidr(),
	}
}

// clusterString is KubernetesClusterVO.toString(), used in server messages.
func (s *Simulator) clusterString(c *cluster) string {
	return fmt.Sprintf(`KubernetesCluster {"id":%d,"name":%s,"uuid":"%s"}`, c.internalID, jsonString(c.name), c.id)
}
