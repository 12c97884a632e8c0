package simulator

import (
	"crypto/ed25519"
	"encoding/binary"
	"encoding/pem"
	"fmt"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/endpoints"
)

// endpointView is an immutable copy of what the endpoints read, published on
// every unlock so SSH sessions and API requests never wait on the model lock.
type endpointView struct {
	nodes map[string][]endpoints.Node
	keys  map[string][]ssh.PublicKey
}

// endpointSource implements endpoints.Source from the published view.
type endpointSource struct{ s *Simulator }

// KubeNodes returns the cluster's registered Kubernetes nodes.
func (e endpointSource) KubeNodes(clusterID string) ([]endpoints.Node, bool) {
	v := e.s.view.Load()
	if v == nil {
		return nil, false
	}
	nodes, ok := v.nodes[clusterID]
	return append([]endpoints.Node(nil), nodes...), ok
}

// AuthorizedKeys returns the keys accepted for user cloud on the cluster's
// nodes: the cluster key pair's public key.
func (e endpointSource) AuthorizedKeys(clusterID string) []ssh.PublicKey {
	v := e.s.view.Load()
	if v == nil {
		return nil
	}
	return append([]ssh.PublicKey(nil), v.keys[clusterID]...)
}

// publishView rebuilds the endpoint view. Callers hold the lock. It runs on
// every unlock, so it reads the nodes once, not once per cluster: a fleet
// of a thousand clusters would otherwise make every call quadratic.
func (s *Simulator) publishView() {
	v := &endpointView{nodes: map[string][]endpoints.Node{}, keys: map[string][]ssh.PublicKey{}}
	byCluster := map[string][]endpoints.Node{}
	for _, n := range s.rt.DB.Nodes {
		byCluster[n.ClusterID] = append(byCluster[n.ClusterID], endpoints.Node{
			Name:       n.Name,
			Ready:      s.cl.NodeReady(n),
			Control:    n.Control,
			Version:    "v" + n.Version,
			Created:    n.Created,
			InternalIP: n.IP,
		})
	}
	for _, c := range s.rt.DB.Clusters {
		if c.Removed {
			continue
		}
		v.nodes[c.ID] = append([]endpoints.Node{}, byCluster[c.ID]...)
		if c.Keypair != "" {
			if kp := s.rt.DB.KeypairFor(c.AccountID, c.Keypair); kp != nil {
				v.keys[c.ID] = []ssh.PublicKey{kp.Pub}
			}
		}
	}
	s.view.Store(v)
}

// generateKeyPair creates the per-instance ed25519 key pair seeded as
// cks-key.
func (s *Simulator) generateKeyPair() error {
	seed := make([]byte, ed25519.SeedSize)
	for i := 0; i < len(seed); i += 8 {
		binary.LittleEndian.PutUint64(seed[i:], s.rt.RNG.Uint64())
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		return fmt.Errorf("simulator: key pair: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "cks-key")
	if err != nil {
		return fmt.Errorf("simulator: key pair: %w", err)
	}
	s.keyPriv, s.keyPub, s.keyPEM = priv, pub, pem.EncodeToMemory(block)
	return nil
}
