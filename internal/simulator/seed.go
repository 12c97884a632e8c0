package simulator

import (
	"encoding/base64"
	"fmt"
	"maps"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
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
			vpcDenyTierName, vpcName, network.SharedNetworkName),
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
// and the VPC. Callers hold the lock.
func (s *Simulator) seed() {
	st := s.rt.DB
	now := s.rt.Now()
	ids := &st.SeedIDs

	root := &model.Domain{InternalID: st.NextID("domain"), ID: s.rt.NewUUID(), Name: "ROOT", Path: "ROOT", Created: now}
	st.Domains = append(st.Domains, root)
	ids.RootDomain = root.ID

	admin := s.seedAccount(seedAdminAccount, model.AccountTypeRootAdmin, "Admin")
	admin.IsDefault = true
	tenant := s.seedAccount(seedTenantAccount, model.AccountTypeUser, "User")
	ids.AdminAccount, ids.TenantAccount = admin.ID, tenant.ID
	ids.AdminUser = st.UserOfAccount(admin.ID).ID
	ids.TenantUser = st.UserOfAccount(tenant.ID).ID

	prjAccount := &model.Account{InternalID: st.NextID("account"), ID: s.rt.NewUUID(),
		Name: "PrjAcct-" + seedProjectName + "-1", DomainID: root.ID, AccountType: model.AccountTypeProject,
		RoleType: "User", Created: now}
	prj := &model.Project{InternalID: st.NextID("project"), ID: s.rt.NewUUID(), Name: seedProjectName,
		DisplayText: "CKS simulator project", DomainID: root.ID, AccountID: prjAccount.ID,
		OwnerAccountID: tenant.ID, Created: now}
	prjAccount.ProjectID = prj.ID
	st.Accounts = append(st.Accounts, prjAccount)
	st.Projects = append(st.Projects, prj)
	ids.Project = prj.ID

	z := &model.Zone{InternalID: st.NextID("zone"), ID: s.rt.NewUUID(), Name: seedZoneName, Created: now}
	st.Zones = append(st.Zones, z)
	ids.Zone = z.ID
	st.PublicNet, st.PhysNetID = s.rt.NewUUID(), s.rt.NewUUID()
	st.HostIDs = []string{s.rt.NewUUID(), s.rt.NewUUID()}
	st.HostNames = []string{"sim-kvm-1", "sim-kvm-2"}

	tpl := &model.Template{InternalID: st.NextID("template"), ID: s.rt.NewUUID(), Name: systemVMTemplateName,
		DisplayText: systemVMTemplateName, Created: now}
	st.Templates = append(st.Templates, tpl)
	ids.SystemVMTemplate = tpl.ID
	ids.GuestOS = s.rt.NewUUID()

	ids.OfferingSmall = s.seedOffering(offeringSmallName, "CKS small (too small for CKS): 1 vCPU, 1 GB", 1, 1024)
	ids.OfferingMedium = s.seedOffering(offeringMediumName, "CKS medium: 2 vCPU, 4 GB", 2, 4096)
	ids.OfferingLarge = s.seedOffering(offeringLargeName, "CKS large: 4 vCPU, 8 GB", 4, 8192)

	ids.Versions, ids.DisabledVersions = map[string]string{}, map[string]string{}
	for _, sv := range seedVersions {
		v := &model.KubernetesVersion{InternalID: st.NextID("version"), ID: s.rt.NewUUID(), Name: "v" + sv.semver,
			Semver: sv.semver, State: "Enabled", MinCPU: 2, MinMemory: 2048, SupportsHA: true,
			SupportsAutoscaling: true, Created: now, ZoneID: z.ID, Arch: "x86_64"}
		// Downloaded before the simulator started.
		v.ISO = &model.BinariesISO{InternalID: st.NextID("iso"), ID: s.rt.NewUUID(), Name: v.Name + "-Kubernetes-Binaries-ISO",
			URL: "https://download.cloudstack.org/cks/setup-" + sv.semver + ".iso", ZoneID: z.ID, State: model.ISOReady,
			DownloadState: model.DownloadDone, Percent: 100, Created: now}
		st.ISOs = append(st.ISOs, v.ISO)
		if !sv.enabled {
			v.State = "Disabled"
			ids.DisabledVersions[sv.semver] = v.ID
		} else {
			ids.Versions[sv.semver] = v.ID
		}
		st.Versions = append(st.Versions, v)
	}
	ids.DefaultVersionKey = "1.33.13"

	for _, a := range []*model.Account{admin, tenant, prjAccount} {
		s.seedKeypair(a.ID, seedKeypairName, s.keyPub)
	}

	cksOffer := &model.NetworkOffering{InternalID: st.NextID("netoffering"), ID: s.rt.NewUUID(), Name: cksNetworkOfferingName,
		DisplayText: "Network Offering used for CloudStack Kubernetes service", ConserveMode: true}
	tierOffer := &model.NetworkOffering{InternalID: st.NextID("netoffering"), ID: s.rt.NewUUID(), Name: vpcTierOfferingName,
		DisplayText: "Offering for Isolated VPC networks with Source Nat service enabled", ForVPC: true}
	st.NetOffers = append(st.NetOffers, cksOffer, tierOffer)
	ids.NetworkOffering, ids.VPCTierOffering = cksOffer.ID, tierOffer.ID

	// The global default lists have the fixed ids NetworkACL.DEFAULT_DENY
	// (1) and DEFAULT_ALLOW (2).
	allow := &model.NetworkACL{InternalID: model.ACLDefaultAllowID, ID: s.rt.NewUUID(), Name: aclDefaultAllow,
		Description: "Default Network ACL Allow All", ForDisplay: true}
	deny := &model.NetworkACL{InternalID: model.ACLDefaultDenyID, ID: s.rt.NewUUID(), Name: aclDefaultDeny,
		Description: "Default Network ACL Deny All", DefaultDeny: true, ForDisplay: true}
	st.ACLs = append(st.ACLs, allow, deny)
	st.Seq["acl"] = model.ACLDefaultAllowID

	iso := s.net.NewNetwork(isolatedNetworkName, z.ID, cksOffer.ID, admin.ID, "", "")
	s.net.ImplementNetwork(iso)
	ids.IsolatedNetwork = iso.ID

	vp := &model.VPC{InternalID: st.NextID("vpc"), ID: s.rt.NewUUID(), Name: vpcName, CIDR: "10.100.0.0/16",
		ZoneID: z.ID, AccountID: admin.ID, Created: now}
	st.VPCs = append(st.VPCs, vp)
	ids.VPC = vp.ID
	if _, err := s.net.AllocPublicIP(admin.ID, "", vp.ID, true); err != nil {
		s.rt.Logf("seed VPC source NAT IP: %v", err)
	}
	tier := s.net.NewNetwork(vpcTierName, z.ID, tierOffer.ID, admin.ID, vp.ID, allow.ID)
	tier.CIDR, tier.Gateway = "10.100.1.0/24", "10.100.1.1"
	tier.State = model.NetworkImplemented
	deniedTier := s.net.NewNetwork(vpcDenyTierName, z.ID, tierOffer.ID, admin.ID, vp.ID, deny.ID)
	deniedTier.CIDR, deniedTier.Gateway = "10.100.2.0/24", "10.100.2.1"
	deniedTier.State = model.NetworkImplemented
	ids.VPCTier, ids.VPCDenyTier = tier.ID, deniedTier.ID
	// Seeded last, so that the ids seeded before keep their values.
	nodeTpl := &model.Template{InternalID: st.NextID("template"), ID: s.rt.NewUUID(), Name: cksNodeTemplateName,
		DisplayText: cksNodeTemplateName, ForCKS: true, Created: now}
	st.Templates = append(st.Templates, nodeTpl)
	ids.NodeTemplate = nodeTpl.ID
	cni := &model.UserData{InternalID: st.NextID("userdata"), ID: s.rt.NewUUID(), Name: cniConfigName, AccountID: ids.AdminAccount,
		Content: base64.StdEncoding.EncodeToString([]byte(seedCNIConfig)), ForCKS: true, Created: now}
	st.UserData = append(st.UserData, cni)
	ids.CNIConfig = cni.ID
	s.net.SeedSharedNetwork(z.ID)
	plain := &model.Template{InternalID: st.NextID("template"), ID: s.rt.NewUUID(), Name: plainTemplateName,
		DisplayText: plainTemplateName, Created: now}
	st.Templates = append(st.Templates, plain)
	ids.PlainTemplate = plain.ID
	s.seedACLs(vp, tierOffer, allow, deny)
}

// seedACLs gives the default lists their items and seeds a custom list in
// the VPC, with an item of its own, used by two tiers: one of the
// non-conserve-mode tier offering (CKS forwards the API) and one of a
// conserve-mode offering (CKS balances the API). Seeded after everything
// else, so that the ids seeded before keep their values.
func (s *Simulator) seedACLs(vp *model.VPC, tierOffer *model.NetworkOffering, allow, deny *model.NetworkACL) {
	st := s.rt.DB
	for _, def := range []struct {
		acl    *model.NetworkACL
		action string
	}{{deny, network.ACLDeny}, {allow, network.ACLAllow}} {
		for i, traffic := range []string{network.ACLIngress, network.ACLEgress} {
			st.ACLItems = append(st.ACLItems, &model.NetworkACLItem{InternalID: st.NextID("aclitem"), ID: s.rt.NewUUID(),
				ACLID: def.acl.ID, Number: i + 1, Protocol: "all", CIDRs: []string{"0.0.0.0/0"}, TrafficType: traffic,
				Action: def.action, State: network.ACLItemActive, ForDisplay: true, Created: s.rt.Now()})
		}
		s.net.ApplyACL(def.acl.ID)
	}
	custom := &model.NetworkACL{InternalID: st.NextID("acl"), ID: s.rt.NewUUID(), Name: seedACLName,
		Description: "CKS simulator tier ACL", VPCID: vp.ID, ForDisplay: true}
	st.ACLs = append(st.ACLs, custom)
	web := 443
	if _, err := s.net.AllowIngress(custom, "tcp", web, "web"); err != nil {
		s.rt.Logf("seed ACL item: %v", err)
	}
	s.net.ApplyACL(custom.ID)
	conserve := &model.NetworkOffering{InternalID: st.NextID("netoffering"), ID: s.rt.NewUUID(), Name: vpcTierConserveOfferingName,
		DisplayText: "Offering for VPC tiers with conserve mode", ConserveMode: true, ForVPC: true}
	st.NetOffers = append(st.NetOffers, conserve)
	for i, t := range []struct {
		name  string
		offer *model.NetworkOffering
		id    *string
	}{{"sim-vpc-tier-acl", tierOffer, &st.SeedIDs.VPCACLTier}, {"sim-vpc-tier-acl-lb", conserve, &st.SeedIDs.VPCACLTierLB}} {
		n := s.net.NewNetwork(t.name, vp.ZoneID, t.offer.ID, vp.AccountID, vp.ID, custom.ID)
		n.CIDR, n.Gateway = fmt.Sprintf("10.100.%d.0/24", 3+i), fmt.Sprintf("10.100.%d.1", 3+i)
		n.State = model.NetworkImplemented
		*t.id = n.ID
	}
	st.SeedIDs.VPCACL = custom.ID
}

func (s *Simulator) seedAccount(name string, accountType int, roleType string) *model.Account {
	st := s.rt.DB
	now := s.rt.Now()
	a := &model.Account{InternalID: st.NextID("account"), ID: s.rt.NewUUID(), Name: name,
		DomainID: st.SeedIDs.RootDomain, AccountType: accountType, RoleType: roleType, Created: now}
	u := &model.User{InternalID: st.NextID("user"), ID: s.rt.NewUUID(), Username: name, AccountID: a.ID,
		APIKey: s.rt.NewSecretString(), SecretKey: s.rt.NewSecretString(), Created: now}
	st.Accounts = append(st.Accounts, a)
	st.Users = append(st.Users, u)
	return a
}

func (s *Simulator) seedOffering(name, display string, cpu, memory int) string {
	o := &model.ServiceOffering{InternalID: s.rt.DB.NextID("offering"), ID: s.rt.NewUUID(), Name: name,
		DisplayText: display, CPU: cpu, CPUSpeed: 1000, Memory: memory, Created: s.rt.Now()}
	s.rt.DB.Offerings = append(s.rt.DB.Offerings, o)
	return o.ID
}

func (s *Simulator) seedKeypair(accountID, name string, pub ssh.PublicKey) {
	s.rt.DB.Keypairs = append(s.rt.DB.Keypairs, &model.KeyPair{InternalID: s.rt.DB.NextID("keypair"), ID: s.rt.NewUUID(),
		Name: name, AccountID: accountID, Fingerprint: ssh.FingerprintLegacyMD5(pub), Pub: pub, Created: s.rt.Now()})
}

// infoLocked builds Info. Callers hold the lock.
func (s *Simulator) infoLocked(apiURL, adminURL, keyFile string) Info {
	ids := s.rt.DB.SeedIDs
	offeringName := func(id string) string {
		return nameOf(s.rt.DB.Offering(id), func(o *model.ServiceOffering) string { return o.Name })
	}
	networkName := func(id string) string {
		return nameOf(s.rt.DB.Network(id), func(n *model.Network) string { return n.Name })
	}
	admin := s.rt.DB.UserOfAccount(ids.AdminAccount)
	tenant := s.rt.DB.UserOfAccount(ids.TenantAccount)
	return Info{
		APIURL:                     apiURL,
		APIKey:                     admin.APIKey,
		SecretKey:                  admin.SecretKey,
		AdminURL:                   adminURL,
		ZoneID:                     ids.Zone,
		ServiceOfferingID:          ids.OfferingMedium,
		KubernetesVersions:         maps.Clone(ids.Versions),
		Keypair:                    seedKeypairName,
		PrivateKeyFile:             keyFile,
		Profile:                    s.rt.Profile.Name,
		CloudStackVersion:          s.rt.Profile.CloudStackVersion,
		DisabledKubernetesVersions: maps.Clone(ids.DisabledVersions),
		LargeServiceOfferingID:     ids.OfferingLarge,
		SmallServiceOfferingID:     ids.OfferingSmall,
		NetworkOfferingID:          ids.NetworkOffering,
		IsolatedNetworkID:          ids.IsolatedNetwork,
		VPCID:                      ids.VPC,
		VPCTierNetworkID:           ids.VPCTier,
		VPCDenyTierNetworkID:       ids.VPCDenyTier,
		DomainID:                   ids.RootDomain,
		Account:                    seedAdminAccount,
		ProjectID:                  ids.Project,
		TenantAccount:              seedTenantAccount,
		TenantAPIKey:               tenant.APIKey,
		TenantSecretKey:            tenant.SecretKey,
		PublicIPBlock:              s.net.PublicBlockCIDR(),
		NodeTemplateID:             ids.NodeTemplate,
		PlainTemplateID:            ids.PlainTemplate,
		CNIConfigurationID:         ids.CNIConfig,
		SharedNetworkID:            ids.SharedNetwork,
		SharedNetworkCIDR:          s.net.SharedBlockCIDR(),
		VPCACLID:                   ids.VPCACL,
		VPCACLTierNetworkID:        ids.VPCACLTier,
		VPCACLTierLBNetworkID:      ids.VPCACLTierLB,
		ZoneName:                   nameOf(s.rt.DB.Zone(ids.Zone), func(z *model.Zone) string { return z.Name }),
		ServiceOfferingName:        offeringName(ids.OfferingMedium),
		LargeServiceOfferingName:   offeringName(ids.OfferingLarge),
		SmallServiceOfferingName:   offeringName(ids.OfferingSmall),
		KubernetesVersionNames:     s.versionNamesLocked(ids.Versions),
		IsolatedNetworkName:        networkName(ids.IsolatedNetwork),
		VPCTierNetworkName:         networkName(ids.VPCTier),
		SharedNetworkName:          networkName(ids.SharedNetwork),
		ProjectName:                nameOf(s.rt.DB.Project(ids.Project), func(p *model.Project) string { return p.Name }),
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
// Callers hold the lock.
func (s *Simulator) versionNamesLocked(ids map[string]string) map[string]string {
	out := make(map[string]string, len(ids))
	for semver, id := range ids {
		out[semver] = nameOf(s.rt.DB.Version(id), func(v *model.KubernetesVersion) string { return v.Name })
	}
	return out
}
