package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// readOrRemove reads the object of a resource's state by its id for Read:
// an object CloudStack no longer has is removed from the state, and a read
// that fails is reported. ok says whether there is an object to record.
func readOrRemove[T any](ctx context.Context, what, id string, resp *resource.ReadResponse,
	get func(context.Context, string) (T, error),
) (T, bool) {
	obj, err := get(ctx, id)
	switch {
	case cloudstack.IsNotFound(err):
		tflog.Warn(ctx, what+" no longer exists; removing it from state", map[string]any{"id": id})
		resp.State.RemoveResource(ctx)
		return obj, false
	case err != nil:
		resp.Diagnostics.AddError("Unable to Read "+titleCase(what), fmt.Sprintf("Reading %s %s failed: %s", what, id, err))
		return obj, false
	}
	return obj, true
}
