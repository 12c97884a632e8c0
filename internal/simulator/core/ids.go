package core

import (
	cryptorand "crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// NewRNG returns a random source of the simulator: deterministic for a
// non-zero seed, otherwise seeded from crypto/rand.
func NewRNG(seed uint64) *rand.Rand {
	var key [32]byte
	if seed != 0 {
		binary.LittleEndian.PutUint64(key[:], seed)
		binary.LittleEndian.PutUint64(key[8:], seed^0x9e3779b97f4a7c15)
	} else if _, err := cryptorand.Read(key[:]); err != nil {
		panic("simulator: crypto/rand failed: " + err.Error())
	}
	return rand.New(rand.NewChaCha8(key))
}

// derivedRNG is a random source of its own for one purpose, derived from
// the seed with salt so that drawing from it never changes what the main
// source hands out; 0 (random) stays random.
func derivedRNG(seed, salt uint64) *rand.Rand {
	if seed == 0 {
		return NewRNG(0)
	}
	return NewRNG(seed ^ salt)
}

// NewUUID returns a random (version 4) UUID. Callers hold the lock.
func (r *Runtime) NewUUID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], r.RNG.Uint64())
	binary.LittleEndian.PutUint64(b[8:], r.RNG.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewSecretString returns 64 random bytes base64url-encoded without padding,
// the shape of CloudStack api keys and secret keys. Callers hold the lock.
func (r *Runtime) NewSecretString() string {
	b := make([]byte, 64)
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.RNG.Uint64())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
