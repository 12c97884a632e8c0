package simulator

// commandHandler runs one API command with s.mu held and returns the body
// inside "<command>response".
type commandHandler func(s *Simulator, c *caller, p params) (map[string]any, *apiError)
