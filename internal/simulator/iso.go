package simulator

import (
	"strconv"
	"strings"
	"time"
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
// by the image store in the background. Callers hold s.mu.
func (s *Simulator) registerISO(versionName, url, checksum, zoneID string, directDownload bool) *binariesISO {
	iso := &binariesISO{internalID: s.st.nextID("iso"), id: s.newUUID(), name: versionName + "-Kubernetes-Binaries-ISO",
		url: url, checksum: checksum, zoneID: zoneID, directDownload: directDownload, created: s.now()}
	s.st.isos = append(s.st.isos, iso)
	if directDownload {
		iso.state, iso.downloadState = isoReady, downloadBypassed
		return iso
	}
	// createTemplateAsync moves the row to Creating at once; the
	// download state waits for the first report of the image store.
	iso.state, iso.downloadState = isoCreating, downloadNotStarted
	plan := s.st.isoDownloads[url]
	if plan.Duration == 0 {
		plan.Duration = s.opts.ISODownloadDuration
	}
	s.jobs.Add(1)
	go func() {
		defer s.jobs.Done()
		s.download(iso, plan)
	}()
	return iso
}

// download plays the image store's reports of one download
// (BaseImageStoreDriverImpl.createTemplateAsyncCallback): progress, then
// DOWNLOADED and the move to Ready, or DOWNLOAD_ERROR with its error string
// and the move back to Allocated (TemplateServiceImpl.createTemplateCallback,
// OperationFailed from Creating).
func (s *Simulator) download(iso *binariesISO, plan ISODownload) {
	for report := 1; report <= isoDownloadReports+1; report++ {
		if !s.sleep(plan.Duration / (isoDownloadReports + 1)) {
			return
		}
		s.lock()
		switch {
		case iso.removed:
		case report <= isoDownloadReports:
			iso.downloadState, iso.percent = downloadInProgress, 100*report/(isoDownloadReports+1)
		case plan.Error != "":
			iso.downloadState, iso.errorString, iso.state = downloadError, plan.Error, isoAllocated
		default:
			iso.downloadState, iso.percent, iso.state = downloadDone, 100, isoReady
		}
		s.unlock()
	}
}

// cmdListIsos is listIsos for the ISOs the simulator has, the Kubernetes
// versions' binaries ISOs. An admin sees the download status and URL
// (TemplateJoinDaoImpl.newIsoResponse); id, name, keyword and zoneid narrow
// the list.
func cmdListIsos(s *Simulator, c *caller, p params) (map[string]any, *apiError) {
	byID, err := resolveParam(p, "id", s.st.iso)
	if err != nil {
		return nil, err
	}
	if _, err := resolveParam(p, "zoneid", s.st.zone); err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, iso := range s.st.isos {
		switch {
		case iso.removed,
			byID != nil && iso != byID,
			p.has("name") && p.str("name") != iso.name,
			p.has("zoneid") && iso.zoneID != "" && !strings.EqualFold(p.str("zoneid"), iso.zoneID),
			!matchesKeyword(p, iso.name):
			continue
		}
		items = append(items, s.renderISO(iso, c))
	}
	return s.listBody(p, "iso", items)
}

func (s *Simulator) renderISO(iso *binariesISO, c *caller) map[string]any {
	out := map[string]any{
		"id":             iso.id,
		"name":           iso.name,
		"displaytext":    iso.name,
		"ispublic":       true,
		"isfeatured":     false,
		"isextractable":  false,
		"bootable":       false,
		"isready":        iso.state == isoReady,
		"crossZones":     iso.zoneID == "",
		"format":         "ISO",
		"created":        csTime(iso.created),
		"account":        "system",
		"domain":         "ROOT",
		"domainid":       s.st.seedIDs.rootDomain,
		"directdownload": iso.directDownload,
		"arch":           "x86_64",
		"hasannotations": false,
	}
	if iso.checksum != "" {
		out["checksum"] = iso.checksum
	}
	zoneID := iso.zoneID
	if zoneID == "" {
		zoneID = s.st.seedIDs.zone // a cross-zone ISO has a row per zone; the simulator has one
	}
	if z := s.st.zone(zoneID); z != nil {
		out["zoneid"], out["zonename"] = z.id, z.name
	}
	if c.isAdmin() {
		out["status"] = iso.status()
		out["url"] = iso.url
		if !iso.directDownload {
			out["downloaddetails"] = []map[string]string{{"datastore": "sim-secondary-storage", "datastoreRole": "Image",
				"downloadPercent": strconv.Itoa(iso.percent), "downloadState": iso.downloadState}}
		}
	}
	return out
}
