// Package catalog is the simulator's area of what clusters are made from
// and who owns them: zones, service offerings, templates, Kubernetes
// versions and their binaries ISOs, CNI configurations, key pairs, domains,
// accounts and projects, and the async jobs an account started. It stands
// on core and on the floors below it; the areas above it (networks, the CKS
// workers, the admin API) reach it through a *Catalog.
package catalog

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
)

// Catalog is the catalogue and accounts area of one simulator.
type Catalog struct {
	*core.Runtime
}

// New returns the area on the simulator's runtime.
func New(rt *core.Runtime) *Catalog { return &Catalog{Runtime: rt} }

// Commands are the area's API commands, by name (case-sensitive, as
// CloudStack's command map is).
var Commands = map[string]core.Handler[*Catalog]{
	"listZones":                        cmdListZones,
	"listServiceOfferings":             cmdListServiceOfferings,
	"listTemplates":                    cmdListTemplates,
	"listSSHKeyPairs":                  cmdListSSHKeyPairs,
	"listProjects":                     cmdListProjects,
	"listDomains":                      cmdListDomains,
	"listAccounts":                     cmdListAccounts,
	"listCapabilities":                 cmdListCapabilities,
	"listKubernetesSupportedVersions":  cmdListKubernetesSupportedVersions,
	"addKubernetesSupportedVersion":    cmdAddKubernetesSupportedVersion,
	"updateKubernetesSupportedVersion": cmdUpdateKubernetesSupportedVersion,
	"deleteKubernetesSupportedVersion": cmdDeleteKubernetesSupportedVersion,
	"listIsos":                         cmdListIsos,
	"registerCniConfiguration":         cmdRegisterCniConfiguration,
	"listCniConfiguration":             cmdListCniConfiguration,
	"deleteCniConfiguration":           cmdDeleteCniConfiguration,
	"queryAsyncJobResult":              cmdQueryAsyncJobResult,
	"listAsyncJobs":                    cmdListAsyncJobs,
}
