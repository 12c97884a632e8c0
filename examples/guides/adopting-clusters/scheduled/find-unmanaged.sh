#!/usr/bin/env bash
# Prints the CKS clusters CloudStack has that none of the given Terraform
# working directories manages, and exits 1 when it finds one: run it on a
# schedule, from this directory, to find clusters made outside Terraform.
#
#   ./find-unmanaged.sh ../team-a ../team-b
#
# Needs terraform (1.14 or later; $TERRAFORM names another binary) and jq.
set -euo pipefail
tf=${TERRAFORM:-terraform}

# The ids of the clusters every working directory's state holds.
managed=$(for dir in "$@"; do "$tf" -chdir="$dir" show -json; done |
  jq -s '[.[] | .. | objects | select(.type? == "cks_cluster") | .values.id]')

# The clusters terraform query finds whose id no state holds.
unmanaged=$("$tf" query -json -no-color |
  jq -r --argjson managed "$managed" '
    select(.type == "list_resource_found") | .list_resource_found
    | select(.identity.id as $id | $managed | index($id) | not)
    | "\(.identity.id)  \(.display_name)"')

if [ -n "$unmanaged" ]; then
  echo "Clusters that no Terraform state manages:"
  echo "$unmanaged"
  exit 1
fi
echo "Every cluster is managed by Terraform."
