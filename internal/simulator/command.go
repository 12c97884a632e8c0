package simulator

import (
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// commandHandler runs one API command with the lock held and returns the body
// inside "<command>response".
type commandHandler func(s *Simulator, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError)
