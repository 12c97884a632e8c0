package cloudstack

import (
	"context"
	"strconv"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// VersionAdmin registers, changes and deletes Kubernetes versions, root
// admin commands, and reads their binaries ISOs.
type VersionAdmin interface {
	// AddKubernetesSupportedVersion is synchronous: the version exists when
	// it returns, its ISO still downloading.
	AddKubernetesSupportedVersion(ctx context.Context, p AddVersionParams) (KubernetesVersion, error)
	UpdateKubernetesSupportedVersion(ctx context.Context, id, state string) (KubernetesVersion, error)
	// DeleteKubernetesSupportedVersion starts an async job.
	DeleteKubernetesSupportedVersion(ctx context.Context, id string) (AsyncRef, error)
	// GetKubernetesSupportedVersion returns an *Error of kind KindNotFound
	// when the version does not exist (any more).
	GetKubernetesSupportedVersion(ctx context.Context, id string) (KubernetesVersion, error)
	// GetISO reads a binaries ISO; KindNotFound when it is gone.
	GetISO(ctx context.Context, id string) (ISO, error)
}

// AddVersionParams are addKubernetesSupportedVersion's parameters. Empty
// values are not sent.
type AddVersionParams struct {
	Name            string
	SemanticVersion string
	ZoneID          string
	URL             string
	Checksum        string
	MinCPUNumber    int
	MinMemory       int
	DirectDownload  bool
	Arch            string
}

// ISO is a binaries ISO as an admin's listIsos shows it.
type ISO struct {
	ID      string
	Name    string
	IsReady bool
	// Status is the download status: "Processing", "35% Downloaded",
	// "Successfully Installed", or the image store's error string.
	Status string
	// DownloadStates are the download states on each image store
	// (downloaddetails[].downloadState), such as DOWNLOAD_IN_PROGRESS or
	// DOWNLOAD_ERROR.
	DownloadStates []string
	// DownloadPercent is the highest download percentage reported.
	DownloadPercent int
	// URL is where the ISO is downloaded from (shown to admins).
	URL string
}

func versionFrom(v *csgo.KubernetesSupportedVersion) KubernetesVersion {
	return KubernetesVersion{
		ID:                  v.Id,
		Name:                v.Name,
		SemanticVersion:     v.Semanticversion,
		ZoneID:              v.Zoneid,
		State:               v.State,
		ISOState:            v.Isostate,
		MinCPUNumber:        v.Mincpunumber,
		MinMemory:           v.Minmemory,
		SupportsHA:          v.Supportsha,
		SupportsAutoscaling: v.Supportsautoscaling,
		ISOID:               v.Isoid,
		ISOName:             v.Isoname,
		DirectDownload:      v.Directdownload,
		Arch:                v.Arch,
		Created:             v.Created,
	}
}

// AddKubernetesSupportedVersion registers a version. It is never retried:
// a lost answer may have registered it.
func (c *Client) AddKubernetesSupportedVersion(ctx context.Context, p AddVersionParams) (KubernetesVersion, error) {
	const command = "addKubernetesSupportedVersion"
	_, ex, err := call(ctx, c, command, callOpts{raw: true},
		func(cs *csgo.CloudStackClient) (struct{}, error) {
			ap := cs.Kubernetes.NewAddKubernetesSupportedVersionParams(p.MinCPUNumber, p.MinMemory, p.SemanticVersion)
			setIf(ap.SetName, p.Name)
			setIf(ap.SetZoneid, p.ZoneID)
			setIf(ap.SetUrl, p.URL)
			setIf(ap.SetChecksum, p.Checksum)
			setIf(ap.SetArch, p.Arch)
			if p.DirectDownload {
				ap.SetDirectdownload(true)
			}
			_, err := cs.Kubernetes.AddKubernetesSupportedVersion(ap)
			return struct{}{}, err
		})
	if err != nil {
		return KubernetesVersion{}, err
	}
	return decodeVersion(command, ex)
}

// UpdateKubernetesSupportedVersion sets a version's state, Enabled or
// Disabled.
func (c *Client) UpdateKubernetesSupportedVersion(ctx context.Context, id, state string) (KubernetesVersion, error) {
	const command = "updateKubernetesSupportedVersion"
	_, ex, err := call(ctx, c, command, callOpts{raw: true},
		func(cs *csgo.CloudStackClient) (struct{}, error) {
			_, err := cs.Kubernetes.UpdateKubernetesSupportedVersion(cs.Kubernetes.NewUpdateKubernetesSupportedVersionParams(id, state))
			return struct{}{}, err
		})
	if err != nil {
		return KubernetesVersion{}, err
	}
	return decodeVersion(command, ex)
}

// decodeVersion reads the version of an add or update response,
// {"kubernetessupportedversion": {...}} inside the command's envelope.
// cloudstack-go v2.19.0 decodes the update's response without taking the
// object out of it, which leaves every field empty, so both are decoded
// here.
func decodeVersion(command string, ex exchange) (KubernetesVersion, error) {
	var body struct {
		Version *csgo.KubernetesSupportedVersion `json:"kubernetessupportedversion"`
	}
	if err := decodeEnvelope(ex.body, &body); err != nil || body.Version == nil || body.Version.Id == "" {
		return KubernetesVersion{}, &Error{Command: command, HTTPStatus: ex.status,
			Text: "the response carries no Kubernetes version", Err: err}
	}
	return versionFrom(body.Version), nil
}

// DeleteKubernetesSupportedVersion starts the delete job.
func (c *Client) DeleteKubernetesSupportedVersion(ctx context.Context, id string) (AsyncRef, error) {
	ref, _, err := call(ctx, c, "deleteKubernetesSupportedVersion", callOpts{},
		func(cs *csgo.CloudStackClient) (AsyncRef, error) {
			r, err := cs.Kubernetes.DeleteKubernetesSupportedVersion(cs.Kubernetes.NewDeleteKubernetesSupportedVersionParams(id))
			if err != nil {
				return AsyncRef{}, err
			}
			return AsyncRef{JobID: r.JobID}, nil
		})
	return ref, err
}

// GetKubernetesSupportedVersion lists one version by id. An admin sees
// Disabled versions too.
func (c *Client) GetKubernetesSupportedVersion(ctx context.Context, id string) (KubernetesVersion, error) {
	const command = "listKubernetesSupportedVersions"
	r, _, err := call(ctx, c, command, callOpts{read: true},
		func(cs *csgo.CloudStackClient) (*csgo.ListKubernetesSupportedVersionsResponse, error) {
			lp := cs.Kubernetes.NewListKubernetesSupportedVersionsParams()
			lp.SetId(id)
			return cs.Kubernetes.ListKubernetesSupportedVersions(lp)
		})
	if err != nil {
		return KubernetesVersion{}, err
	}
	for _, v := range r.KubernetesSupportedVersions {
		if v.Id == id {
			return versionFrom(v), nil
		}
	}
	return KubernetesVersion{}, NewNotFoundError(command, "Kubernetes version", id)
}

// GetISO lists one ISO by id, with every ISO filter an admin may use.
func (c *Client) GetISO(ctx context.Context, id string) (ISO, error) {
	const command = "listIsos"
	r, _, err := call(ctx, c, command, callOpts{read: true},
		func(cs *csgo.CloudStackClient) (*csgo.ListIsosResponse, error) {
			lp := cs.ISO.NewListIsosParams()
			lp.SetId(id)
			lp.SetIsofilter("all")
			return cs.ISO.ListIsos(lp)
		})
	if err != nil {
		return ISO{}, err
	}
	for _, raw := range r.Isos {
		if raw.Id != id {
			continue
		}
		iso := ISO{ID: raw.Id, Name: raw.Name, IsReady: raw.Isready, Status: raw.Status, URL: raw.Url}
		for _, d := range raw.Downloaddetails {
			iso.DownloadStates = append(iso.DownloadStates, d["downloadState"])
			if pct, err := strconv.Atoi(d["downloadPercent"]); err == nil && pct > iso.DownloadPercent {
				iso.DownloadPercent = pct
			}
		}
		return iso, nil
	}
	return ISO{}, NewNotFoundError(command, "ISO", id)
}

// setIf calls set with v unless v is empty: cloudstack-go sends every
// parameter that was set, and an empty one is not "unset" for the server.
func setIf(set func(string), v string) {
	if v != "" {
		set(v)
	}
}
