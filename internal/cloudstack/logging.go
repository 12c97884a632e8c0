package cloudstack

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// sensitiveFieldKeys are log field names whose values are always masked.
// The client never logs these; the masks guard against future mistakes.
var sensitiveFieldKeys = []string{
	"apikey", "apiKey", "api_key", "secretkey", "secret_key", "signature",
	"configdata", "kubeconfig",
}

// logContext returns ctx with the command as a log field and every secret
// masked in messages and field values.
func (c *Client) logContext(ctx context.Context, command string) context.Context {
	ctx = tflog.SetField(ctx, "cloudstack_command", command)
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, sensitiveFieldKeys...)
	secrets := make([]string, 0, 2)
	for _, s := range []string{c.apiKey, c.secretKey} {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	if len(secrets) > 0 {
		ctx = tflog.MaskAllFieldValuesStrings(ctx, secrets...)
		ctx = tflog.MaskMessageStrings(ctx, secrets...)
	}
	return ctx
}
