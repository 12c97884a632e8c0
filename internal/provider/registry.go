package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// The provider's objects, one line each, so that adding one touches one place.
var (
	resourceConstructors = []func() resource.Resource{
		newClusterResource,
		newClusterNodeResource,
		newKubernetesVersionResource,
		newCNIConfigurationResource,
	}

	dataSourceConstructors = []func() datasource.DataSource{
		newKubernetesVersionDataSource,
		newKubernetesVersionsDataSource,
		newZoneDataSource,
		newServiceOfferingDataSource,
		newNetworkDataSource,
		newProjectDataSource,
		newClusterDataSource,
		newClusterDriftDataSource,
		newClustersDriftDataSource,
	}

	ephemeralConstructors = []func() ephemeral.EphemeralResource{
		newClusterKubeconfigEphemeral,
	}

	listConstructors = []func() list.ListResource{
		newClusterListResource,
	}
)
