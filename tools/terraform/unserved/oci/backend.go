// Package oci stands in for Terraform's "oci" backend: see ../shared.
package oci

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/backend/remote-state/unserved"
)

// New returns a backend that refuses to be configured.
func New() backend.Backend { return unserved.New("oci") }
