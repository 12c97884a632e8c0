package admin

import (
	"fmt"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// SetKubeletVersion makes a VM's kubelet report another version, as when an
// operator runs the upgrade script on one node by hand or the node is
// re-joined from another template: its Kubernetes node object reports it
// (status.nodeInfo.kubeletVersion), while the VM's map row keeps what the
// last upgrade wrote, since only the upgrade job updates it
// (KubernetesClusterUtil.clusterNodeVersionMatches). The version is a
// semantic version such as 1.33.13, with or without "v".
func (s *Admin) SetKubeletVersion(vmID, version string) error {
	version = strings.TrimPrefix(strings.TrimSpace(version), "v")
	if version == "" {
		return fmt.Errorf("a kubelet version such as 1.33.13 is needed")
	}
	s.Lock()
	defer s.Unlock()
	n := s.DB.NodeOfVM(vmID)
	if n == nil {
		return fmt.Errorf("the Kubernetes node of VM %s: %w", vmID, ErrNotFound)
	}
	n.Version = version
	return nil
}

// SetISODownload decides how later downloads of url go; it changes no
// download that already started.
func (s *Admin) SetISODownload(url string, d model.ISODownload) error {
	if strings.TrimSpace(url) == "" {
		return fmt.Errorf("an ISO URL is needed")
	}
	if d.Duration < 0 {
		return fmt.Errorf("the download duration must not be negative")
	}
	s.Lock()
	defer s.Unlock()
	if s.DB.ISODownloads == nil {
		s.DB.ISODownloads = map[string]model.ISODownload{}
	}
	s.DB.ISODownloads[url] = d
	return nil
}
