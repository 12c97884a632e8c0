package catalogops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// AddResult is what AddVersion did.
type AddResult struct {
	Version cloudstack.KubernetesVersion
	// Adopted: the add's answer was lost, and the one new version that
	// matches every parameter is taken as its result (LostErr).
	Adopted bool
	LostErr error
}

// lostAnswerRechecks are the pauses before AddVersion and RegisterCNI look
// for the result of a create whose answer was lost: the command may still
// be running when the first look comes.
var lostAnswerRechecks = []time.Duration{0, 2 * time.Second}

// AddVersion registers a Kubernetes version. The add is never retried:
// CloudStack does not refuse a second version of the same name, so a retry
// of an add whose answer was lost could register it twice. Such an answer
// is taken to be the one version that is new and matches every parameter.
func (e *Engine) AddVersion(ctx context.Context, p cloudstack.AddVersionParams) (AddResult, error) {
	before, err := e.api.ListKubernetesSupportedVersions(ctx, "")
	if err != nil {
		return AddResult{}, &ListError{What: "the Kubernetes versions", Err: err}
	}
	known := map[string]bool{}
	for _, v := range before {
		known[v.ID] = true
	}
	e.logf(ctx, "adding Kubernetes version", map[string]any{"semantic_version": p.SemanticVersion, "zone_id": p.ZoneID,
		"direct_download": p.DirectDownload})
	v, err := e.api.AddKubernetesSupportedVersion(ctx, p)
	if err == nil {
		return AddResult{Version: v}, nil
	}
	if refused(err) {
		return AddResult{}, &RefusedError{What: "Kubernetes version " + p.SemanticVersion, Err: err}
	}
	found, ferr := e.findLostVersion(ctx, p, known, err)
	if ferr != nil {
		return AddResult{}, ferr
	}
	e.logf(ctx, "adopted the Kubernetes version of an add whose answer was lost", map[string]any{"version_id": found.ID})
	return AddResult{Version: found, Adopted: true, LostErr: err}, nil
}

// refused tells whether a create was answered with CloudStack's own error
// (nothing was created), or never sent. Anything else may have created.
func refused(err error) bool {
	switch cloudstack.DeliveryOf(err) {
	case cloudstack.DeliveryNotSent:
		return true
	case cloudstack.DeliveryAnswered:
		// A bare HTTP status may come from a proxy that forwarded the
		// request; CloudStack's error object says it was refused.
		return cloudstack.ParseError(err).ErrorCode != 0
	}
	return false
}

func (e *Engine) findLostVersion(ctx context.Context, p cloudstack.AddVersionParams, known map[string]bool, lost error) (cloudstack.KubernetesVersion, error) {
	what := "Kubernetes version " + p.SemanticVersion
	var candidates []cloudstack.KubernetesVersion
	for _, pause := range lostAnswerRechecks {
		if !cloudstack.Sleep(ctx, pause) {
			break
		}
		all, err := e.api.ListKubernetesSupportedVersions(ctx, "")
		if err != nil {
			return cloudstack.KubernetesVersion{}, &LostAnswerError{What: what, Err: errors.Join(lost, err)}
		}
		candidates = candidates[:0]
		for _, v := range all {
			if !known[v.ID] && e.sameVersion(ctx, v, p) {
				candidates = append(candidates, v)
			}
		}
		if len(candidates) > 0 {
			break
		}
	}
	if len(candidates) == 1 {
		return candidates[0], nil
	}
	var names []string
	for _, v := range candidates {
		names = append(names, fmt.Sprintf("%s (%s)", v.Name, v.ID))
	}
	slices.Sort(names)
	return cloudstack.KubernetesVersion{}, &LostAnswerError{What: what, Candidates: names, Err: lost}
}

// sameVersion tells whether a version has every parameter of an add: its
// name (or the default name, v<semver> with the zone's name after it),
// semantic version, zone, minimums and the URL of its ISO.
func (e *Engine) sameVersion(ctx context.Context, v cloudstack.KubernetesVersion, p cloudstack.AddVersionParams) bool {
	nameOK := v.Name == p.Name
	if p.Name == "" {
		nameOK = v.Name == "v"+p.SemanticVersion || (p.ZoneID != "" && strings.HasPrefix(v.Name, "v"+p.SemanticVersion+"-"))
	}
	if !nameOK || v.SemanticVersion != p.SemanticVersion || !strings.EqualFold(v.ZoneID, p.ZoneID) ||
		v.MinCPUNumber != p.MinCPUNumber || v.MinMemory != p.MinMemory || v.DirectDownload != p.DirectDownload {
		return false
	}
	iso, err := e.api.GetISO(ctx, v.ISOID)
	return err == nil && iso.URL == p.URL
}

// Progress is one look at a downloading ISO.
type Progress struct {
	// State is the ISO's state in the version (isostate): Creating while it
	// downloads.
	State string
	// Status is listIsos' status: "Processing", "35% Downloaded", ...
	Status  string
	Percent int
	Elapsed time.Duration
}

// downloadFailed are the download states BaseImageStoreDriverImpl.
// createTemplateAsyncCallback ends a download in as failed.
var downloadFailed = []string{"DOWNLOAD_ERROR", "ABANDONED", "UNKNOWN"}

// WaitVersionReady polls a version until its ISO is Ready and returns it.
// A download the image store reports failed ends the wait with a
// DownloadFailedError carrying its reason (the ISO's state then goes back to
// Allocated, which a download that has not started has too, so the
// download state decides); the context's end with a DownloadTimeoutError.
// report, when not nil, gets the progress as often as it is logged.
func (e *Engine) WaitVersionReady(ctx context.Context, id string, report func(Progress)) (cloudstack.KubernetesVersion, error) {
	start := time.Now()
	var last Progress
	var lastReport time.Time
	for {
		v, err := e.api.GetKubernetesSupportedVersion(ctx, id)
		switch {
		case err != nil && ctx.Err() != nil:
			return cloudstack.KubernetesVersion{}, &DownloadTimeoutError{VersionID: id, Last: last, Waited: time.Since(start)}
		case err != nil:
			return cloudstack.KubernetesVersion{}, err
		case strings.EqualFold(v.ISOState, "Ready"):
			e.logf(ctx, "the Kubernetes version's ISO is Ready", map[string]any{"version_id": id, "waited_s": time.Since(start).Seconds()})
			return v, nil
		}
		iso, err := e.api.GetISO(ctx, v.ISOID)
		if err != nil && ctx.Err() == nil {
			return v, err
		}
		if slices.ContainsFunc(iso.DownloadStates, func(s string) bool { return slices.Contains(downloadFailed, s) }) ||
			strings.EqualFold(v.ISOState, "Failed") {
			return v, &DownloadFailedError{VersionID: id, ISOID: v.ISOID, ISOName: v.ISOName, Reason: iso.Status}
		}
		last = Progress{State: v.ISOState, Status: iso.Status, Percent: iso.DownloadPercent, Elapsed: time.Since(start)}
		if lastReport.IsZero() || time.Since(lastReport) >= e.opts.DownloadProgress {
			lastReport = time.Now()
			e.logf(ctx, "waiting for the Kubernetes version's ISO to download", map[string]any{"version_id": id,
				"iso_id": v.ISOID, "iso_state": last.State, "iso_status": last.Status, "download_percent": last.Percent,
				"elapsed_s": last.Elapsed.Seconds()})
			if report != nil {
				report(last)
			}
		}
		if !cloudstack.Sleep(ctx, e.opts.DownloadPoll) {
			return v, &DownloadTimeoutError{VersionID: id, Last: last, Waited: time.Since(start)}
		}
	}
}

// GetVersion reads a version; KindNotFound when it is gone.
func (e *Engine) GetVersion(ctx context.Context, id string) (cloudstack.KubernetesVersion, error) {
	return e.api.GetKubernetesSupportedVersion(ctx, id)
}

// SetVersionState enables or disables a version.
func (e *Engine) SetVersionState(ctx context.Context, id, state string) (cloudstack.KubernetesVersion, error) {
	e.logf(ctx, "changing the state of a Kubernetes version", map[string]any{"version_id": id, "state": state})
	return e.api.UpdateKubernetesSupportedVersion(ctx, id, state)
}

// DeleteVersion deletes a version and its ISO. It refuses, before any
// change, while a cluster uses the version, as CloudStack's job would; a
// version that is already gone is no error.
func (e *Engine) DeleteVersion(ctx context.Context, id string) error {
	if err := e.refuseVersionInUse(ctx, id); err != nil {
		return err
	}
	ref, err := e.api.DeleteKubernetesSupportedVersion(ctx, id)
	if cloudstack.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := cloudstack.WaitForJob(ctx, e.api, ref.JobID, e.waitOptions("deleteKubernetesSupportedVersion")); err != nil {
		if cloudstack.IsJobFailure(err) {
			// A cluster created since the check: name it.
			if inUse := e.refuseVersionInUse(ctx, id); inUse != nil {
				return inUse
			}
		}
		return err
	}
	e.logf(ctx, "deleted Kubernetes version", map[string]any{"version_id": id})
	return nil
}

func (e *Engine) refuseVersionInUse(ctx context.Context, id string) error {
	users, err := e.VersionUsers(ctx, id)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return &InUseError{What: "Kubernetes version", ID: id, Clusters: users, Why: VersionInUseWhy}
	}
	return nil
}

// GetISO reads a version's binaries ISO; KindNotFound when it is gone.
func (e *Engine) GetISO(ctx context.Context, id string) (cloudstack.ISO, error) {
	return e.api.GetISO(ctx, id)
}
