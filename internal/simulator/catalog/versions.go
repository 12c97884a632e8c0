package catalog

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// The Kubernetes version commands (KubernetesVersionManagerImpl): list for
// everyone, add, update and delete for root admins only.

// minKubernetesVersion is KubernetesVersionService.MIN_KUBERNETES_VERSION.
const minKubernetesVersion = "1.11.0"

// Minimum node size of a version (KubernetesClusterService).
const (
	minNodeCPU    = 2
	minNodeMemory = 2048
)

// cmdDeleteVersionClass is the command class queryAsyncJobResult reports.
const cmdDeleteVersionClass = "org.apache.cloudstack.api.command.admin.kubernetes.version.DeleteKubernetesSupportedVersionCmd"

// semverDigits is AddKubernetesSupportedVersionCmd.getSemanticVersion's
// format check.
var semverDigits = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)

// adminOnly is what the API layer answers a caller whose role does not
// have the command: the admin version commands are authorized for root
// admins only.
func adminOnly(c *core.Caller) *wire.APIError {
	if c.IsAdmin() {
		return nil
	}
	return &wire.APIError{Code: wire.CodeUnsupported, CSCode: wire.CSServerAPIException,
		Text: "The given command does not exist or it is not available for user"}
}

func cmdListKubernetesSupportedVersions(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if p.Has("minimumsemanticversion") && p.Has("minimumkubernetesversionid") {
		return nil, wire.InvalidParam("Both parameters minimumsemanticversion, minimumkubernetesversionid can not be passed together")
	}
	byID, err := wire.ResolveParam(p, "id", s.DB.Version)
	if err != nil {
		return nil, err
	}
	zone, err := wire.ResolveParam(p, "zoneid", s.DB.Zone)
	if err != nil {
		return nil, err
	}
	minVersion, err := wire.ResolveParam(p, "minimumkubernetesversionid", s.DB.Version)
	if err != nil {
		return nil, err
	}
	minSemver := p.Str("minimumsemanticversion")
	if minVersion != nil {
		minSemver = minVersion.Semver
	}
	items := []map[string]any{}
	for _, v := range s.DB.Versions {
		switch {
		case v.Removed,
			byID != nil && v != byID,
			// A zone's list has its versions and those of every zone.
			zone != nil && v.ZoneID != "" && v.ZoneID != zone.ID,
			!c.IsAdmin() && v.State != "Enabled",
			minSemver != "" && CompareSemver(v.Semver, minSemver) < 0,
			p.Has("arch") && !strings.EqualFold(p.Str("arch"), v.Arch),
			!wire.MatchesKeyword(p, v.Name):
			continue
		}
		items = append(items, s.renderVersion(v))
	}
	return s.ListBody(p, "kubernetessupportedversion", items)
}

// renderVersion is KubernetesVersionManagerImpl.createKubernetesSupportedVersionResponse:
// the zone only for a zone's version, the ISO's data store state as isostate.
func (s *Catalog) renderVersion(v *model.KubernetesVersion) map[string]any {
	out := map[string]any{
		"id":                  v.ID,
		"name":                v.Name,
		"semanticversion":     v.Semver,
		"arch":                v.Arch,
		"supportsha":          v.SupportsHA,
		"supportsautoscaling": v.SupportsAutoscaling,
		"state":               v.State,
		"mincpunumber":        v.MinCPU,
		"minmemory":           v.MinMemory,
		"created":             wire.CSTime(v.Created),
	}
	if iso := v.ISO; iso != nil && !iso.Removed {
		out["isoid"], out["isoname"], out["isostate"] = iso.ID, iso.Name, iso.State
		out["directdownload"] = iso.DirectDownload
	}
	if z := s.DB.Zone(v.ZoneID); z != nil {
		out["zoneid"], out["zonename"] = z.ID, z.Name
	}
	return out
}

// cmdAddKubernetesSupportedVersion is addKubernetesSupportedVersion, a
// synchronous command: its checks in KubernetesVersionManagerImpl.
// addKubernetesSupportedVersion's order, then the ISO's registration and the
// version row. Nothing stops two versions with the same name or semantic
// version.
func cmdAddKubernetesSupportedVersion(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if err := adminOnly(c); err != nil {
		return nil, err
	}
	req, err := s.parseAddVersion(p)
	if err != nil {
		return nil, err
	}
	v := &model.KubernetesVersion{InternalID: s.DB.NextID("version"), ID: s.NewUUID(), Name: req.name, Semver: req.semver,
		State: "Enabled", MinCPU: req.minCPU, MinMemory: req.minMemory,
		SupportsHA: CompareSemver(req.semver, "1.16.0") >= 0,
		// versionSupportsAutoscaling compares the strings, not the versions.
		SupportsAutoscaling: strings.Compare(req.semver, "1.15.0") >= 0,
		Created:             s.Now(), ZoneID: req.zoneID, Arch: req.arch}
	v.ISO = s.registerISO(v.Name, req.url, req.checksum, req.zoneID, req.directDownload)
	s.DB.Versions = append(s.DB.Versions, v)
	s.Logf("added Kubernetes version %s (%s) with ISO %s from %s", v.Name, v.Semver, v.ISO.ID, req.url)
	return map[string]any{"kubernetessupportedversion": s.renderVersion(v)}, nil
}

// addVersionRequest is addKubernetesSupportedVersion's validated input.
type addVersionRequest struct {
	name, semver      string
	zoneID            string
	url, checksum     string
	minCPU, minMemory int
	directDownload    bool
	arch              string
}

func (s *Catalog) parseAddVersion(p wire.Params) (*addVersionRequest, *wire.APIError) {
	for _, name := range []string{"semanticversion", "mincpunumber", "minmemory"} {
		if _, err := p.Require(name); err != nil {
			return nil, err
		}
	}
	zone, err := wire.ResolveParam(p, "zoneid", s.DB.Zone)
	if err != nil {
		return nil, err
	}
	cpu, _, err := p.Long("mincpunumber")
	if err != nil {
		return nil, err
	}
	memory, _, err := p.Long("minmemory")
	if err != nil {
		return nil, err
	}
	req := &addVersionRequest{name: p.Str("name"), semver: p.Str("semanticversion"), url: p.Str("url"),
		checksum: p.Str("checksum"), minCPU: int(cpu), minMemory: int(memory), arch: "x86_64"}
	req.directDownload, _ = p.Bool("directdownload")
	if p.Has("arch") {
		req.arch = p.Str("arch")
	}
	if zone != nil {
		req.zoneID = zone.ID
	}
	switch {
	case !semverDigits.MatchString(req.semver):
		return nil, wire.InvalidParam("Invalid version format. Semantic version needed")
	case req.minCPU < minNodeCPU:
		return nil, wire.InvalidParam("Invalid value for mincpunumber parameter. Minimum %d vCPUs required.", minNodeCPU)
	case req.minMemory < minNodeMemory:
		return nil, wire.InvalidParam("Invalid value for minmemory parameter. Minimum %dMB memory required", minNodeMemory)
	case strings.Count(req.semver, ".") < 2:
		// compareSemanticVersions throws IllegalArgumentException, which
		// the API layer answers with 431 too.
		return nil, wire.InvalidParam("Invalid version format, %s. Semantic version should be specified in MAJOR.MINOR.PATCH format", req.semver)
	case CompareSemver(req.semver, minKubernetesVersion) < 0:
		return nil, wire.InvalidParam("New supported Kubernetes version cannot be added as %s is minimum version supported by Kubernetes Service",
			minKubernetesVersion)
	case strings.TrimSpace(req.url) == "":
		return nil, wire.InvalidParam("Invalid URL for ISO specified, %s", nullable(req.url))
	}
	if req.name == "" {
		req.name = "v" + req.semver
		if zone != nil {
			req.name += "-" + zone.Name
		}
	}
	return req, nil
}

// nullable is how String.format prints a parameter that was not sent.
func nullable(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// cmdUpdateKubernetesSupportedVersion is updateKubernetesSupportedVersion:
// state must name KubernetesSupportedVersion.State exactly (Enabled,
// Disabled); the row is written only when the state changes.
func cmdUpdateKubernetesSupportedVersion(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if err := adminOnly(c); err != nil {
		return nil, err
	}
	for _, name := range []string{"id", "state"} {
		if _, err := p.Require(name); err != nil {
			return nil, err
		}
	}
	v, err := wire.ResolveParam(p, "id", s.DB.Version)
	if err != nil {
		return nil, err
	}
	state := p.Str("state")
	if state != "Enabled" && state != "Disabled" {
		return nil, wire.InvalidParam("Invalid value for state parameter")
	}
	if v.State != state {
		v.State = state
		s.Logf("Kubernetes version %s (%s) is now %s", v.Name, v.ID, state)
	}
	return map[string]any{"kubernetessupportedversion": s.renderVersion(v)}, nil
}

// cmdDeleteKubernetesSupportedVersion is deleteKubernetesSupportedVersion,
// an async command: the job refuses while any cluster that is not removed
// uses the version (KubernetesClusterDao.listAllByKubernetesVersion), then
// deletes the ISO and removes the version row.
func cmdDeleteKubernetesSupportedVersion(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if err := adminOnly(c); err != nil {
		return nil, err
	}
	if _, err := p.Require("id"); err != nil {
		return nil, err
	}
	v, err := wire.ResolveParam(p, "id", s.DB.Version)
	if err != nil {
		return nil, err
	}
	j := s.StartJob(c, cmdDeleteVersionClass, "KubernetesSupportedVersion", v.ID, 1,
		func(jr *core.JobRun) (any, *wire.APIError) {
			if v.Removed {
				return nil, wire.InvalidParam("Invalid Kubernetes version id specified")
			}
			for _, cl := range s.DB.Clusters {
				if !cl.Removed && cl.VersionID == v.ID {
					return nil, wire.InternalError("Unable to delete Kubernetes version ID: %s. Existing clusters currently using the version.", v.ID)
				}
			}
			if v.ISO != nil {
				v.ISO.Removed = true
			}
			v.Removed = true
			s.Logf("deleted Kubernetes version %s (%s)", v.Name, v.ID)
			return map[string]any{"success": true}, nil
		})
	return map[string]any{"jobid": j.ID}, nil
}

// CompareSemver compares dotted numeric versions.
func CompareSemver(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
