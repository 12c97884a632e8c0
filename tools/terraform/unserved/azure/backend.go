// Package azure stands in for Terraform's "azurerm" backend: see ../shared.
package azure

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/backend/remote-state/unserved"
)

// New returns a backend that refuses to be configured.
func New() backend.Backend { return unserved.New("azurerm") }
