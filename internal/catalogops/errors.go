package catalogops

import (
	"fmt"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// InUseError refuses to delete a Kubernetes version or a CNI configuration
// that clusters still refer to. Nothing was changed when it is returned.
type InUseError struct {
	// What is "Kubernetes version" or "CNI configuration".
	What     string
	ID       string
	Clusters []ClusterRef
	// Why says what the delete would do to them.
	Why string
}

func (e *InUseError) Error() string {
	names := make([]string, 0, len(e.Clusters))
	for _, c := range e.Clusters {
		names = append(names, c.String())
	}
	noun := "cluster"
	if len(names) > 1 {
		noun = "clusters"
	}
	return fmt.Sprintf("%s %s is used by %d %s: %s. %s.", e.What, e.ID, len(names), noun, strings.Join(names, "; "), e.Why)
}

// What a delete of an object in use would do, for InUseError.Why.
const (
	VersionInUseWhy = "CloudStack deletes a version only when no cluster uses it " +
		"(KubernetesVersionManagerImpl.deleteKubernetesSupportedVersion): upgrade those clusters to another version, or " +
		"delete them, first"
	CNIInUseWhy = "CloudStack would delete it, and then fail every list of Kubernetes clusters that holds one of them " +
		"(KubernetesClusterManagerImpl.createKubernetesClusterResponse reads the configuration and gets null): delete " +
		"those clusters first"
)

// DownloadFailedError is a version whose binaries ISO the image store
// failed to download: CloudStack keeps the version, and no cluster can use
// it.
type DownloadFailedError struct {
	VersionID string
	ISOID     string
	ISOName   string
	// Reason is the image store's error string, as listIsos shows it.
	Reason string
}

func (e *DownloadFailedError) Error() string {
	return fmt.Sprintf("the binaries ISO %s (%s) of Kubernetes version %s failed to download: %s", e.ISOName, e.ISOID,
		e.VersionID, e.Reason)
}

// DownloadTimeoutError is a version whose ISO was still downloading when
// the wait ended. The version exists; its download goes on.
type DownloadTimeoutError struct {
	VersionID string
	Last      Progress
	Waited    time.Duration
}

func (e *DownloadTimeoutError) Error() string {
	return fmt.Sprintf("the binaries ISO of Kubernetes version %s was not Ready after %s (ISO state %s, %s); the version "+
		"exists and CloudStack goes on downloading it", e.VersionID, e.Waited.Round(time.Second), e.Last.State, e.Last.Status)
}

// RefusedError is an add or register that CloudStack refused with its own
// error: nothing was created.
type RefusedError struct {
	What string
	Err  error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("CloudStack refused to create the %s: %v", e.What, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// LostAnswerError is an add or register whose answer never came, and whose
// result could not be told: no new object matches every parameter, or
// more than one does. Nothing is recorded; the objects it names may be it.
type LostAnswerError struct {
	What       string
	Candidates []string
	Err        error
}

func (e *LostAnswerError) Error() string {
	if len(e.Candidates) == 0 {
		return fmt.Sprintf("the answer to the create of the %s was lost (%v), and no new one that matches every parameter "+
			"is listed: it was most likely not created; apply again", e.What, e.Err)
	}
	return fmt.Sprintf("the answer to the create of the %s was lost (%v), and %d new ones match every parameter: %s. "+
		"Import the one this configuration made, and delete the others", e.What, e.Err, len(e.Candidates),
		strings.Join(e.Candidates, ", "))
}

func (e *LostAnswerError) Unwrap() error { return e.Err }

// NameTakenError is a CNI configuration name the owner already uses:
// CloudStack refuses a second one of the same name in an account.
type NameTakenError struct {
	Name     string
	Existing cloudstack.CNIConfiguration
}

func (e *NameTakenError) Error() string {
	return fmt.Sprintf("the account already has a CNI configuration named %q (%s), and CloudStack compares names without "+
		"case: it allows one %q per account. Import it, or choose another name", e.Existing.Name, e.Existing.ID, e.Name)
}

// ListError is a list the engine needed that failed.
type ListError struct {
	What string
	Err  error
}

func (e *ListError) Error() string {
	msg := fmt.Sprintf("listing %s: %v", e.What, e.Err)
	if strings.Contains(e.Err.Error(), `"cniConfig" is null`) || strings.Contains(e.Err.Error(), "UserDataVO.getUuid()") {
		msg += ". A cluster refers to a CNI configuration that was deleted, and CloudStack fails every list that holds it " +
			"(KubernetesClusterManagerImpl.createKubernetesClusterResponse) until an administrator clears the cluster's " +
			"cni_config_id in the kubernetes_cluster table or points it at a CNI configuration that exists"
	}
	return msg
}

func (e *ListError) Unwrap() error { return e.Err }
