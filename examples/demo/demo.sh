#!/usr/bin/env bash
# `make demo`: the provider's main job against the embedded CloudStack simulator.
#
# It builds the provider and cksim, starts cksim on the 4.22.1.1 profile (the
# one with the scale-down bug), creates a cluster with 1 control, 3 etcd and
# 1 worker node, scales it to 2 workers and back to 1, injects drift, shows
# it as the cluster's plan diff, as the drift check's findings and as a
# failing CI gate, and destroys everything. Nothing outside a temporary
# directory is touched, and the simulator is stopped even on Ctrl-C or
# failure.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cks-demo.XXXXXX")
BIN="$WORK/bin"
TF_DIR="$WORK/tf"
SIM_INFO="$WORK/cksim.json"
STARTED=$SECONDS
STEP=0
SIM_PID=""
APPLIED=""

step() {
  STEP=$((STEP + 1))
  printf '\n\033[1m[%d] %s\033[0m  (%ss)\n' "$STEP" "$1" "$((SECONDS - STARTED))"
}
say() { printf '    %s\n' "$@"; }
die() {
  printf '\ndemo failed: %s\n' "$1" >&2
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 40 "$2" | sed 's/^/    | /' >&2
  exit 1
}

tf() { terraform -chdir="$TF_DIR" "$@" -no-color -input=false -var "simulator_info_file=$SIM_INFO"; }
cluster_output() { terraform -chdir="$TF_DIR" output -json cluster; }

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$APPLIED" ] && [ -n "$SIM_PID" ] && kill -0 "$SIM_PID" 2>/dev/null; then
    tf destroy -auto-approve >"$WORK/destroy-on-exit.log" 2>&1 || true
  fi
  if [ -n "$SIM_PID" ]; then
    kill "$SIM_PID" 2>/dev/null || true
    wait "$SIM_PID" 2>/dev/null || true
  fi
  if [ -n "${CKS_DEMO_KEEP:-}" ]; then
    printf 'logs kept in %s\n' "$WORK" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'printf "\ninterrupted\n" >&2; exit 130' INT TERM

admin() { "$BIN/cksim" admin -url "$ADMIN_URL" "$@"; }

# rule_table prints the cluster's firewall and port-forwarding rules, in id
# order, with the VM each forward reaches.
rule_table() {
  admin dump | jq -r --arg ip "$CLUSTER_IP" '
    (.vms | map({(.id): .name}) | add) as $vm
    | .rules[]
    | select(.ip_address == $ip and .state != "Revoke" and (.purpose == "Firewall" or .purpose == "PortForwarding"))
    | if .purpose == "Firewall"
      then "firewall     \(.start_port)\(if .end_port != .start_port then "-\(.end_port)" else "" end)"
      else "port forward \(.start_port) -> \(.private_port)  \($vm[.vm_id] // .vm_id)"
      end' | sed 's/^/      /'
}

# wrap folds lines longer than 110 columns at spaces; the rest of a line
# goes under the text that follows its indentation and any "- ".
wrap() {
  awk -v width=110 '{
    line = $0
    match(line, /^ *(- )?/)
    lead = RLENGTH
    indent = ""
    for (i = 0; i < lead; i++) indent = indent " "
    while (length(line) > width) {
      cut = width + 1
      while (cut > lead + 1 && substr(line, cut, 1) != " ") cut--
      if (cut <= lead + 1) break
      print substr(line, 1, cut - 1)
      line = indent substr(line, cut + 1)
    }
    print line
  }'
}

# diagnostics prints the provider's warnings and errors from a `-json` log:
# the summary, then each listed item, with ids shortened to their first part.
diagnostics() {
  jq -r 'select(.type == "diagnostic") | .diagnostic
    | select(.summary != "Provider development overrides are in effect")
    | "      \(.severity): \(.summary)",
      (.detail | split("\n") | map(select(test("^ *- "))) | .[]
       | sub("^ *- "; "        - ")
       | gsub("(?<id>[0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"; "\(.id)"))' "$1" | wrap
}

# plan_diff prints what a saved plan shows for the cluster resource: the
# changes made outside Terraform, or the ones apply would make.
plan_diff() {
  terraform -chdir="$TF_DIR" show -no-color "$1" \
    | awk '/^  # cks_cluster\.demo / { p = 1 } p { print "    " $0 } p && /^    }$/ { exit }'
}

step "Build the provider and the simulator"
mkdir -p "$BIN" "$TF_DIR"
(cd "$ROOT" && go build -o "$BIN/terraform-provider-cks" . && go build -o "$BIN/cksim" ./internal/cmd/cksim) \
  || die "go build failed"
cp "$ROOT/examples/demo/main.tf" "$TF_DIR/"
cat >"$WORK/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "cloudstack-cks/cks" = "$BIN"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$WORK/terraformrc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
say "provider and cksim built into a temporary directory; Terraform uses them through dev_overrides"

step "Start cksim on profile 4.22.1.1 (CloudStack with the scale-down bug)"
"$BIN/cksim" -listen 127.0.0.1:0 -profile 4.22.1.1 -job-duration 500ms -key-out "$WORK/cks-key" \
  >"$SIM_INFO" 2>"$WORK/cksim.log" &
SIM_PID=$!
for _ in $(seq 1 300); do
  [ -s "$SIM_INFO" ] && break
  kill -0 "$SIM_PID" 2>/dev/null || die "cksim exited" "$WORK/cksim.log"
  sleep 0.1
done
[ -s "$SIM_INFO" ] || die "cksim printed nothing within 30 s" "$WORK/cksim.log"
ADMIN_URL=$(jq -r .admin_url "$SIM_INFO")
say "API $(jq -r .api_url "$SIM_INFO")"

step "terraform apply: a cluster with 1 control, 3 etcd and 1 worker node"
APPLIED=1
tf apply -json -auto-approve -var size=1 >"$WORK/apply1.log" 2>&1 || die "apply failed" "$WORK/apply1.log"
CLUSTER_ID=$(cluster_output | jq -r .id)
CLUSTER_IP=$(cluster_output | jq -r .ip_address)
cluster_output | jq -r '"      cluster \(.id) \(.state), \(.size) worker(s), public IP \(.ip_address)", (.nodes[] | "        " + .)'
say "rules on $CLUSTER_IP:"
rule_table

HOST_KEY=$(admin cluster-hostkey "cluster_id=$CLUSTER_ID" | jq -r .host_key)
tfv=(-var "ssh_host_key=$HOST_KEY")

step "Scale up to 2 workers"
tf apply -json -auto-approve -var size=2 "${tfv[@]}" >"$WORK/apply2.log" 2>&1 || die "scale-up failed" "$WORK/apply2.log"
diagnostics "$WORK/apply2.log"
say "rules after the scale-up (CloudStack re-created the node SSH range; the one etcd SSH range the provider made"
say "right after the create is untouched, and no forward has its ports, so no scale, by any client, can pick it):"
rule_table

step "Scale down to 1 worker: plain CloudStack 4.22.1.1 fails here with error 530"
tf apply -json -auto-approve -var size=1 "${tfv[@]}" >"$WORK/apply3.log" 2>&1 || die "scale-down failed" "$WORK/apply3.log"
diagnostics "$WORK/apply3.log"
cluster_output | jq -r '"      cluster \(.state), \(.size) worker(s)"'
terraform -chdir="$TF_DIR" output -json drift | jq -r '"      drift check after the scale-down: \(.summary)"'
say "rules after the scale-down (every node and etcd rule preserved):"
rule_table

step "Inject drift through the simulator: stop kubelet on the worker, delete etcd node 2's SSH forward"
WORKER_ID=$(admin dump | jq -r --arg c "$CLUSTER_ID" '[.vms[] | select(.cluster_id == $c and .role == "worker" and (.expunged | not))][0].id')
ETCD_PF=$(admin dump | jq -r --arg ip "$CLUSTER_IP" '[.rules[] | select(.ip_address == $ip and .purpose == "PortForwarding" and .start_port == 50001)][0].id')
admin kubelet-stop "vm_id=$WORKER_ID" >/dev/null
admin rule-delete "rule_id=$ETCD_PF" >/dev/null
say "kubelet stopped on $WORKER_ID, port forward $ETCD_PF deleted"

step "terraform plan -refresh-only: what changed on cks_cluster, and the drift check's findings"
tf plan -json -refresh-only -out="$WORK/drift.tfplan" "${tfv[@]}" >"$WORK/plan.log" 2>&1 \
  || die "plan failed" "$WORK/plan.log"
plan_diff "$WORK/drift.tfplan"
diagnostics "$WORK/plan.log"

step "terraform plan: what apply would repair"
tf plan -json -out="$WORK/repair.tfplan" "${tfv[@]}" >"$WORK/repair.log" 2>&1 || die "plan failed" "$WORK/repair.log"
plan_diff "$WORK/repair.tfplan"
diagnostics "$WORK/repair.log"
say "a normal plan puts the drift check off to apply, because it refers to a cluster with changes pending:" \
  "CI gates run refresh-only plans, like the one below"

step "The refresh-only plan as a CI gate (fail_on_drift = true) exits non-zero"
if tf plan -json -refresh-only "${tfv[@]}" -var fail_on_drift=true >"$WORK/gate.log" 2>&1; then
  die "the CI gate passed although the cluster drifted" "$WORK/gate.log"
fi
diagnostics "$WORK/gate.log"
say "terraform plan exited non-zero: the gate stops the pipeline"

step "terraform destroy"
tf destroy -auto-approve "${tfv[@]}" >"$WORK/destroy.log" 2>&1 || die "destroy failed" "$WORK/destroy.log"
APPLIED=""
LEFT=$(admin dump | jq '[.clusters[] | select(.removed | not)] + [.vms[] | select((.expunged | not) and .user_vm != true)] + [.rules[] | select(.state != "Revoke")] | length')
say "clusters, VMs and rules left in the simulator: $LEFT"

printf '\n\033[1mdemo finished in %ss\033[0m\n' "$((SECONDS - STARTED))"
