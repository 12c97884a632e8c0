package admin

import "fmt"

// CreateStrayVMs is CreateStrayVM for many VMs at once, as a benchmark
// fills an account with thousands of VMs of other applications: one lock,
// one update of the endpoints' view, instead of one per VM. It stops at the
// first VM it cannot create and returns the ids of those it created.
func (s *Admin) CreateStrayVMs(specs []StrayVM) ([]string, error) {
	s.Lock()
	defer s.Unlock()
	ids := make([]string, 0, len(specs))
	for i, spec := range specs {
		id, _, err := s.createStrayVM(spec)
		if err != nil {
			return ids, fmt.Errorf("VM %d of %d: %w", i+1, len(specs), err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
