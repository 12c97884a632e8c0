package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Schema of the ignore rules both drift data sources take, and of what
// they report about them.

// driftIgnoreDescription explains the ignore rules once, for both data
// sources.
const driftIgnoreDescription = "Accepted findings, as driftctl's `.driftignore` accepts known drift: a finding that every " +
	"criterion a rule sets matches (a kind, and Go regular expressions on the VM, Kubernetes node and cluster names, " +
	"unanchored: write `^...$` for an exact name) moves from `findings` to `ignored_findings`, with the rule's `reason`, " +
	"and no longer fails `fail_on_drift` or makes `in_sync` false; the summary counts it. A rule needs at least one " +
	"criterion and a `reason`. With `expires`, it stops ignoring at that time: the findings it matched count again, " +
	"and the plan warns about the expired rule; it also warns about a rule that matches no finding (stale), and about one " +
	"whose findings an earlier rule takes (shadowed). The first rule in the list that matches takes a finding. Incomplete and skipped checks are not findings and cannot be ignored."

// driftIgnoreAttribute is the ignore input.
func driftIgnoreAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional:            true,
		MarkdownDescription: driftIgnoreDescription,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"kind": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Finding kind to ignore, one of the kinds of `findings`; any kind when not set."},
			"vm_name": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Go regular expression the finding's `vm_name` must match; a finding without a VM never matches it."},
			"node_name": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Go regular expression the finding's `node_name` must match; a finding without a node never matches it."},
			"cluster_name": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Go regular expression the cluster's name must match: scopes the rule to clusters of a fleet."},
			"reason": schema.StringAttribute{Required: true,
				MarkdownDescription: "Why the finding is accepted, e.g. a ticket and an owner. Mandatory; reported with each ignored finding."},
			"expires": schema.StringAttribute{Optional: true,
				MarkdownDescription: "When the rule stops ignoring: an RFC 3339 date-time such as `2026-12-31T18:00:00Z`, or a date " +
					"such as `2026-12-31`, which expires at its start (00:00 UTC). Never, when not set; an empty string is refused."},
		}},
	}
}

// driftIgnoredFindingAttrTypes is the object type of an ignored finding:
// the finding, and the rule that ignored it.
var driftIgnoredFindingAttrTypes = func() map[string]attr.Type {
	out := map[string]attr.Type{"reason": types.StringType, "expires": types.StringType, "ignore_index": types.Int64Type}
	for name, t := range driftFindingAttrTypes {
		out[name] = t
	}
	return out
}()

// driftIgnoredAttributes are the per-cluster outputs about ignored findings.
func driftIgnoredAttributes() map[string]schema.Attribute {
	finding := driftFindingAttributes()
	finding["reason"] = schema.StringAttribute{Computed: true, MarkdownDescription: "The `reason` of the rule that ignored it."}
	finding["expires"] = schema.StringAttribute{Computed: true, MarkdownDescription: "The `expires` of that rule; null when it never expires."}
	finding["ignore_index"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Index of that rule in `ignore`, from 0."}
	return map[string]schema.Attribute{
		"ignored_findings": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "The findings `ignore` rules accepted, in the order of `findings`, each with the rule's " +
				"reason. They do not count in `findings`, `counts`, `in_sync` or `fail_on_drift`.",
			NestedObject: schema.NestedAttributeObject{Attributes: finding},
		},
		"ignored_counts": schema.MapAttribute{
			Computed:            true,
			ElementType:         types.Int64Type,
			MarkdownDescription: "Number of ignored findings per kind; every kind is present, zero included.",
		},
	}
}

// driftIgnoreStatusAttrTypes is the object type of one rule's status.
var driftIgnoreStatusAttrTypes = map[string]attr.Type{
	"status":          types.StringType,
	"matched":         types.Int64Type,
	"expired_matches": types.Int64Type,
	"reason":          types.StringType,
}

// Statuses of an ignore rule.
const (
	ignoreStatusActive   = "active"
	ignoreStatusStale    = "stale"
	ignoreStatusShadowed = "shadowed"
	ignoreStatusExpired  = "expired"
)

// driftIgnoreStatusAttribute reports what each rule did.
func driftIgnoreStatusAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "What each `ignore` rule did, rule for rule (over every cluster checked, for a fleet). `status` " +
			"is `" + ignoreStatusActive + "` (it ignored findings), `" + ignoreStatusStale + "` (it matched nothing: the drift " +
			"it accepted is gone, or its criteria are wrong), `" + ignoreStatusShadowed + "` (every finding it matches was " +
			"taken by an earlier rule) or `" + ignoreStatusExpired + "`; `matched` counts the findings it ignored, " +
			"`expired_matches` those it matches but no longer ignores because it expired.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"status":          schema.StringAttribute{Computed: true, MarkdownDescription: "`active`, `stale`, `shadowed` or `expired`."},
			"matched":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Findings the rule ignored."},
			"expired_matches": schema.Int64Attribute{Computed: true, MarkdownDescription: "Findings the rule matches but no longer ignores."},
			"reason":          schema.StringAttribute{Computed: true, MarkdownDescription: "The rule's reason."},
		}},
	}
}
