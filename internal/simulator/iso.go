package simulator

import (
	"fmt"
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

// Data store states of the ISO (isostate).
const (
	isoCreating  = "Creating"  // CreateOnlyRequested: the download runs
	isoReady     = "Ready"     // OperationSuccessed
	isoAllocated = "Allocated" // OperationFailed from Creating: the download failed
)

// Download states of the ISO on the image store.
const (
	downloadNotStarted = "NOT_DOWNLOADED"
	downloadInProgress = "DOWNLOAD_IN_PROGRESS"
	downloadDone       = "DOWNLOADED"
	downloadError      = "DOWNLOAD_ERROR"
	downloadBypassed   = "BYPASSED"
)

// DefaultISODownloadDuration is how long the image store takes to download
// a version's ISO when Options.ISODownloadDuration is zero.
const DefaultISODownloadDuration = 5 * time.Second

// isoDownloadReports is how many progress reports a download sends before
// its last one.
const isoDownloadReports = 4

// binariesISO is a version's ISO and its template_store_ref row.
type binariesISO struct {
	internalID     int64
	id, name       string
	url, checksum  string
	zoneID         string // "" registers it in every zone
	directDownload bool
	state          string
	downloadState  string
	percent        int
	errorString    string
	created        time.Time
	removed        bool
}

// ISODownload is how the image store's download of an ISO URL goes.
type ISODownload struct {
	// Duration is how long it takes; zero means Options.ISODownloadDuration.
	Duration time.Duration `json:"duration"`
	// Error, when set, fails the download at its end with this error
	// string, as the secondary storage VM reports one (for example
	// "HTTP Server returned 404 (expected 200 OK)").
	Error string `json:"error"`
}

// SetISODownload decides how later downloads of url go; it changes no
// download that already started.
func (s *Simulator) SetISODownload(url string, d ISODownload) error {
	if strings.TrimSpace(url) == "" {
		return fmt.Errorf("an ISO URL is needed")
	}
	if d.Duration < 0 {
		return fmt.Errorf("the download duration must not be negative")
	}
	s.lock()
	defer s.unlock()
	if s.st.isoDownloads == nil {
		s.st.isoDownloads = map[string]ISODownload{}
	}
	s.st.isoDownloads[url] = d
	return nil
}

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

// status is the ISO's status in listIsos (TemplateJoinDaoImpl.getTemplateStatus).
func (iso *binariesISO) status() string {
	switch {
	case iso.downloadState == downloadDone:
		return "Successfully Installed"
	case iso.downloadState == downloadInProgress && iso.percent == 100:
		return "Installing ISO"
	case iso.downloadState == downloadInProgress:
		return fmt.Sprintf("%d%% Downloaded", iso.percent)
	case iso.downloadState == downloadBypassed:
		return "Bypassed Secondary Storage"
	case strings.TrimSpace(iso.errorString) != "":
		return strings.TrimSpace(iso.errorString)
	default:
		return "Processing"
	}
}

func (st *state) iso(id string) *binariesISO {
	iso := findByID(st.isos, id, func(i *binariesISO) string { return i.id })
	if iso == nil || iso.removed {
		return nil
	}
	return iso
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

// The admin route of ISO downloads, beside the others (admin_http.go).
func init() {
	adminRoutes = append(adminRoutes, adminRoute{AdminRoute{"POST", "iso/download", []string{"url", "duration", "error"},
		"how later downloads of a Kubernetes version's ISO from url go: how long they take (e.g. 30s), and the error string they fail with, if any"},
		func(s *Simulator, a adminArgs) (any, error) {
			var d ISODownload
			if a.has("duration") {
				var err error
				if d.Duration, err = a.duration("duration"); err != nil {
					return nil, err
				}
			}
			d.Error = a.str("error")
			return nil, s.SetISODownload(a.str("url"), d)
		}})
}
