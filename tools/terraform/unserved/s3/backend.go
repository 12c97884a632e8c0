// Package s3 stands in for Terraform's "s3" backend: see ../shared.
package s3

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/backend/remote-state/unserved"
)

// New returns a backend that refuses to be configured.
func New() backend.Backend { return unserved.New("s3") }
