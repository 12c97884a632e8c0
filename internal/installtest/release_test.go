package installtest

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// The names the registries and the CLIs find the provider by.
const (
	providerName = "terraform-provider-cks"
	namespace    = "cloudstack-cks"
	providerType = "cks"
)

// release is a goreleaser dist directory, read as a registry reads a
// release: the version, and the files the SHA256SUMS list with their sums.
type release struct {
	dir     string
	version string
	sums    map[string]string // file name -> hex SHA-256, as the SHA256SUMS list them
}

// readRelease reads the dist directory and checks that every file the
// SHA256SUMS list is there with that sum.
func readRelease(dir string) (*release, error) {
	var meta struct {
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(dir, "metadata.json"), &meta); err != nil {
		return nil, fmt.Errorf("reading goreleaser's metadata: %w", err)
	}
	r := &release{dir: dir, version: meta.Version}
	sumsName := fmt.Sprintf("%s_%s_SHA256SUMS", providerName, r.version)
	sums, err := parseSums(filepath.Join(dir, sumsName))
	if err != nil {
		return nil, fmt.Errorf("the registry reads the checksums from %s: %w", sumsName, err)
	}
	r.sums = sums
	for name, want := range sums {
		got, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("%s lists %s: %w", sumsName, name, err)
		}
		if got != want {
			return nil, fmt.Errorf("%s lists %s with SHA-256 %s, but the file has %s", sumsName, name, want, got)
		}
	}
	return r, nil
}

func parseSums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != sha256.Size*2 {
			return nil, fmt.Errorf("malformed line %q", sc.Text())
		}
		sums[name] = sum
	}
	if len(sums) == 0 {
		return nil, errors.New("it lists no file")
	}
	return sums, sc.Err()
}

// providerArchives are the archives of the release that are not the
// simulator's: what an air-gapped site copies into its mirror.
func (r *release) providerArchives() []string {
	var out []string
	for name := range r.sums {
		if strings.HasSuffix(name, ".zip") && !strings.HasPrefix(name, "cksim_") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// platform is the machine's, in the CLIs' spelling.
func platform() string { return runtime.GOOS + "_" + runtime.GOARCH }

// checkManifest checks the registry manifest: listed in the SHA256SUMS under
// the name the registry asks for, and declaring the protocol the provider
// binary of this platform's archive speaks. The binary is unpacked into
// scratch.
func (r *release) checkManifest(scratch string) error {
	name := fmt.Sprintf("%s_%s_manifest.json", providerName, r.version)
	if _, ok := r.sums[name]; !ok {
		return fmt.Errorf("the SHA256SUMS list no %s, the registry manifest the registry asks for (they list %v)",
			name, slices.Sorted(maps.Keys(r.sums)))
	}
	var manifest struct {
		Version  int `json:"version"`
		Metadata struct {
			ProtocolVersions []string `json:"protocol_versions"`
		} `json:"metadata"`
	}
	if err := readJSON(filepath.Join(r.dir, name), &manifest); err != nil {
		return fmt.Errorf("registry manifest: %w", err)
	}
	if manifest.Version != 1 {
		return fmt.Errorf("registry manifest %s: version %d, the registry reads version 1", name, manifest.Version)
	}
	binary, err := r.extractBinary(scratch)
	if err != nil {
		return err
	}
	protocol, err := handshakeProtocol(binary)
	if err != nil {
		return err
	}
	if want := []string{protocol + ".0"}; !slices.Equal(manifest.Metadata.ProtocolVersions, want) {
		return fmt.Errorf("registry manifest %s declares protocol_versions %q, but the provider binary speaks protocol %s",
			name, manifest.Metadata.ProtocolVersions, protocol)
	}
	return nil
}

// extractBinary unpacks the executable of this platform's provider archive
// into dir and returns its path.
func (r *release) extractBinary(dir string) (string, error) {
	name := fmt.Sprintf("%s_%s_%s.zip", providerName, r.version, platform())
	zr, err := zip.OpenReader(filepath.Join(r.dir, name))
	if err != nil {
		return "", fmt.Errorf("this platform's archive: %w", err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, providerName) {
			return extractFile(f, filepath.Join(dir, filepath.Base(f.Name)))
		}
	}
	return "", fmt.Errorf("%s holds no executable named %s*", name, providerName)
}

func extractFile(f *zip.File, dst string) (string, error) {
	src, err := f.Open()
	if err != nil {
		return "", err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, src); err != nil {
		_ = out.Close()
		return "", err
	}
	return dst, out.Close()
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
