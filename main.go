// Command terraform-provider-cks serves the CloudStack Kubernetes Service
// provider to Terraform and OpenTofu over plugin protocol 6.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/provider"
)

// version and commit are set by goreleaser and `make build` through
// -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = ""
)

func main() {
	var debug, showVersion bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.BoolVar(&showVersion, "version", false, "print the provider's version and exit")
	flag.Parse()

	if showVersion {
		fmt.Println(versionLine("terraform-provider-cks", version, commit))
		os.Exit(0)
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}

// versionLine is what -version prints: the name, the version and, when the
// build recorded one, the commit.
func versionLine(name, version, commit string) string {
	if commit == "" {
		return name + " " + version
	}
	return fmt.Sprintf("%s %s (commit %s)", name, version, commit)
}
