package simulator

import (
	"fmt"
	"strings"
	"time"
)

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
