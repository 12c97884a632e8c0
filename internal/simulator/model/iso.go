package model

import (
	"fmt"
	"strings"
	"time"
)

// Data store states of the ISO (isostate).
const (
	ISOCreating  = "Creating"  // CreateOnlyRequested: the download runs
	ISOReady     = "Ready"     // OperationSuccessed
	ISOAllocated = "Allocated" // OperationFailed from Creating: the download failed
)

// Download states of the ISO on the image store.
const (
	DownloadNotStarted = "NOT_DOWNLOADED"
	DownloadInProgress = "DOWNLOAD_IN_PROGRESS"
	DownloadDone       = "DOWNLOADED"
	DownloadError      = "DOWNLOAD_ERROR"
	DownloadBypassed   = "BYPASSED"
)

// BinariesISO is a version's ISO and its template_store_ref row.
type BinariesISO struct {
	InternalID     int64
	ID, Name       string
	URL, Checksum  string
	ZoneID         string // "" registers it in every zone
	DirectDownload bool
	State          string
	DownloadState  string
	Percent        int
	ErrorString    string
	Created        time.Time
	Removed        bool
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

// Status is the ISO's status in listIsos (TemplateJoinDaoImpl.getTemplateStatus).
func (iso *BinariesISO) Status() string {
	switch {
	case iso.DownloadState == DownloadDone:
		return "Successfully Installed"
	case iso.DownloadState == DownloadInProgress && iso.Percent == 100:
		return "Installing ISO"
	case iso.DownloadState == DownloadInProgress:
		return fmt.Sprintf("%d%% Downloaded", iso.Percent)
	case iso.DownloadState == DownloadBypassed:
		return "Bypassed Secondary Storage"
	case strings.TrimSpace(iso.ErrorString) != "":
		return strings.TrimSpace(iso.ErrorString)
	default:
		return "Processing"
	}
}

func (st *DB) ISO(id string) *BinariesISO {
	iso := findByID(st.ISOs, id, func(i *BinariesISO) string { return i.ID })
	if iso == nil || iso.Removed {
		return nil
	}
	return iso
}

func (v *KubernetesVersion) ISOState() string {
	if v.ISO == nil {
		return ""
	}
	return v.ISO.State
}
