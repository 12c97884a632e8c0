package simulator

import "github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"

// The parts of the simulator's API that its sub-packages define, under the
// names callers know.

// ISODownload is how the image store's download of an ISO URL goes
// (SetISODownload).
type ISODownload = model.ISODownload
