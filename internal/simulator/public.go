package simulator

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/catalog"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/cluster"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/profiles"
)

// The parts of the simulator's API that its sub-packages define, under the
// names callers know.

// ISODownload is how the image store's download of an ISO URL goes
// (SetISODownload).
type ISODownload = model.ISODownload

// DefaultISODownloadDuration is how long the image store takes to download
// a version's ISO when Options.ISODownloadDuration is zero.
const DefaultISODownloadDuration = catalog.DefaultISODownloadDuration

// DefaultScannerInterval is the state scanner's period when
// Options.ScannerInterval is zero.
const DefaultScannerInterval = cluster.DefaultScannerInterval

// Behaviour profiles (Options.Profile): CloudStack builds that exist
// upstream; package profiles says what each one does differently.
const (
	Profile42211   = profiles.Profile42211
	Profile42200   = profiles.Profile42200
	ProfilePR14165 = profiles.ProfilePR14165
	Profile42100   = profiles.Profile42100
	ProfileFixed   = profiles.ProfileFixed
)

// Profiles returns the name of every behaviour profile (aliases excluded),
// the default first, for profile-matrix tests.
func Profiles() []string { return profiles.Names() }
