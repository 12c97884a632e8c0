package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// objectAsOptions converts objects strictly: unknown and null fields are
// decoded into the model's framework types, never dropped.
var objectAsOptions = basetypes.ObjectAsOptions{}
