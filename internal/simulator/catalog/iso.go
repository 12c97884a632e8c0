package catalog

import (
	"strconv"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// The binaries ISO of a Kubernetes version. addKubernetesSupportedVersion
// registers it with RegisterIsoCmd (KubernetesVersionManagerImpl.
// registerKubernetesVersionIso): public, not bootable, owned by the system
// account, named "<version name>-Kubernetes-Binaries-ISO". Its
// template_store_ref row holds two states: the data store state
// (ObjectInDataStoreStateMachine.State), which listKubernetesSupportedVersions
// reports as isostate, and the download state
// (VMTemplateStorageResourceAssoc.Status) with its percentage and error
// string, which only listIsos shows (status, downloaddetails).

// DefaultISODownloadDuration is how long the image store takes to download
// a version's ISO when Options.ISODownloadDuration is zero.
const DefaultISODownloadDuration = 5 * time.Second

// isoDownloadReports is how many progress reports a download sends before
// its last one.
const isoDownloadReports = 4

// registerISO is registerIso for a version's ISO: a direct download ISO
// bypasses secondary storage and is Ready at once; any other is downloaded
// by the image store in the background. Callers hold the lock.
func (s *Catalog) registerISO(versionName, url, checksum, zoneID string, directDownload bool) *model.BinariesISO {
	iso := &model.BinariesISO{InternalID: s.DB.NextID("iso"), ID: s.NewUUID(), Name: versionName + "-Kubernetes-Binaries-ISO",
		URL: url, Checksum: checksum, ZoneID: zoneID, DirectDownload: directDownload, Created: s.Now()}
	s.DB.ISOs = append(s.DB.ISOs, iso)
	if directDownload {
		iso.State, iso.DownloadState = model.ISOReady, model.DownloadBypassed
		return iso
	}
	// createTemplateAsync moves the row to Creating at once; the
	// download state waits for the first report of the image store.
	iso.State, iso.DownloadState = model.ISOCreating, model.DownloadNotStarted
	plan := s.DB.ISODownloads[url]
	if plan.Duration == 0 {
		plan.Duration = s.Opts.ISODownloadDuration
	}
	s.Go(func() { s.download(iso, plan) })
	return iso
}

// download plays the image store's reports of one download
// (BaseImageStoreDriverImpl.createTemplateAsyncCallback): progress, then
// DOWNLOADED and the move to Ready, or DOWNLOAD_ERROR with its error string
// and the move back to Allocated (TemplateServiceImpl.createTemplateCallback,
// OperationFailed from Creating).
func (s *Catalog) download(iso *model.BinariesISO, plan model.ISODownload) {
	for report := 1; report <= isoDownloadReports+1; report++ {
		if !s.Sleep(plan.Duration / (isoDownloadReports + 1)) {
			return
		}
		s.Lock()
		switch {
		case iso.Removed:
		case report <= isoDownloadReports:
			iso.DownloadState, iso.Percent = model.DownloadInProgress, 100*report/(isoDownloadReports+1)
		case plan.Error != "":
			iso.DownloadState, iso.ErrorString, iso.State = model.DownloadError, plan.Error, model.ISOAllocated
		default:
			iso.DownloadState, iso.Percent, iso.State = model.DownloadDone, 100, model.ISOReady
		}
		s.Unlock()
	}
}

// cmdListIsos is listIsos for the ISOs the simulator has, the Kubernetes
// versions' binaries ISOs. An admin sees the download status and URL
// (TemplateJoinDaoImpl.newIsoResponse); id, name, keyword and zoneid narrow
// the list.
func cmdListIsos(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	byID, err := wire.ResolveParam(p, "id", s.DB.ISO)
	if err != nil {
		return nil, err
	}
	if _, err := wire.ResolveParam(p, "zoneid", s.DB.Zone); err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, iso := range s.DB.ISOs {
		switch {
		case iso.Removed,
			byID != nil && iso != byID,
			p.Has("name") && p.Str("name") != iso.Name,
			p.Has("zoneid") && iso.ZoneID != "" && !strings.EqualFold(p.Str("zoneid"), iso.ZoneID),
			!wire.MatchesKeyword(p, iso.Name):
			continue
		}
		items = append(items, s.renderISO(iso, c))
	}
	return s.ListBody(p, "iso", items)
}

func (s *Catalog) renderISO(iso *model.BinariesISO, c *core.Caller) map[string]any {
	out := map[string]any{
		"id":             iso.ID,
		"name":           iso.Name,
		"displaytext":    iso.Name,
		"ispublic":       true,
		"isfeatured":     false,
		"isextractable":  false,
		"bootable":       false,
		"isready":        iso.State == model.ISOReady,
		"crossZones":     iso.ZoneID == "",
		"format":         "ISO",
		"created":        wire.CSTime(iso.Created),
		"account":        "system",
		"domain":         "ROOT",
		"domainid":       s.DB.SeedIDs.RootDomain,
		"directdownload": iso.DirectDownload,
		"arch":           "x86_64",
		"hasannotations": false,
	}
	if iso.Checksum != "" {
		out["checksum"] = iso.Checksum
	}
	zoneID := iso.ZoneID
	if zoneID == "" {
		zoneID = s.DB.SeedIDs.Zone // a cross-zone ISO has a row per zone; the simulator has one
	}
	if z := s.DB.Zone(zoneID); z != nil {
		out["zoneid"], out["zonename"] = z.ID, z.Name
	}
	if c.IsAdmin() {
		out["status"] = iso.Status()
		out["url"] = iso.URL
		if !iso.DirectDownload {
			out["downloaddetails"] = []map[string]string{{"datastore": "sim-secondary-storage", "datastoreRole": "Image",
				"downloadPercent": strconv.Itoa(iso.Percent), "downloadState": iso.DownloadState}}
		}
	}
	return out
}
