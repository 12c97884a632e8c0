// Package installtest checks the release that .goreleaser.yml builds the way
// users get it: the snapshot's archives laid out as a filesystem mirror (how
// an air-gapped site installs a provider), `init` without dev_overrides,
// `providers lock` against the SHA256SUMS, and a plan against the simulator,
// with Terraform and with OpenTofu. Its tests are the package; there is no
// library code.
package installtest
