package simulator

import "github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"

// commandHandler runs one API command with s.mu held and returns the body
// inside "<command>response".
type commandHandler func(s *Simulator, c *caller, p wire.Params) (map[string]any, *wire.APIError)
