package simulator

import (
	cryptorand "crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// newRNG returns the simulator's random source: deterministic for a
// non-zero seed, otherwise seeded from crypto/rand.
func newRNG(seed uint64) *rand.Rand {
	var key [32]byte
	if seed != 0 {
		binary.LittleEndian.PutUint64(key[:], seed)
		binary.LittleEndian.PutUint64(key[8:], seed^0x9e3779b97f4a7c15)
	} else if _, err := cryptorand.Read(key[:]); err != nil {
		panic("simulator: crypto/rand failed: " + err.Error())
	}
	return rand.New(rand.NewChaCha8(key))
}

// newUUID returns a random (version 4) UUID. Callers hold s.mu.
func (s *Simulator) newUUID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], s.rng.Uint64())
	binary.LittleEndian.PutUint64(b[8:], s.rng.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newSecretString returns 64 random bytes base64url-encoded without padding,
// the shape of CloudStack api keys and secret keys.
func (s *Simulator) newSecretString() string {
	b := make([]byte, 64)
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], s.rng.Uint64())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
