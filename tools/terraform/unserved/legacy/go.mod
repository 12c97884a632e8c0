// Terraform's internal/legacy module, which only the remote state backends
// import: an empty stand-in, so that the module graph resolves.
module github.com/hashicorp/terraform/internal/legacy

go 1.24.5
