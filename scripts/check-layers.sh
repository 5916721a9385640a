#!/usr/bin/env bash
# The include check of src/: fails on an include that points up the layer order of
# docs/DESIGN.md §3 ("Layers"), and on the rules that go beyond the order.
#
#   scripts/check-layers.sh [REPO_ROOT]
#
# Layers, lowest first (a file may include its own layer and those below; folders on one rank
# are peers and may include each other):
#   util → ff → ec → curves → msm, ntt, pairing, io → formats → groth16, circuits → gpu
#   → engine → service, supraseal → cli
# The generated gRPC headers (cuzk/v1/*.pb.h) belong to service. Beyond the order:
#   service/ and cli/ include no gpu/ header: they reach the GPU through the engine.
# Prints one line per offending include (file:line: what, why) and exits 1 if there is any.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

declare -A rank=(
  [util]=0 [ff]=1 [ec]=2 [curves]=3
  [msm]=4 [ntt]=4 [pairing]=4 [io]=4
  [formats]=5 [groth16]=6 [circuits]=6 [gpu]=7 [engine]=8
  [service]=9 [supraseal]=9 [cuzk]=9 [cli]=10
)
# Which folders may not include which (beyond the order), as "from:to".
forbidden=(service:gpu cli:gpu)

status=0
folders=0
while IFS= read -r dir; do
  from=${dir#src/}
  if [[ -z ${rank[$from]+x} ]]; then
    echo "src/$from: a folder with no place in the layer order (add it to scripts/check-layers.sh and docs/DESIGN.md)"
    status=1
    continue
  fi
  folders=$((folders + 1))
  while IFS=: read -r file line text; do
    [[ $text =~ \"([^\"]+)\" ]] || continue
    target=${BASH_REMATCH[1]}
    to=${target%%/*}
    [[ $to == "$target" ]] && continue  # a file beside the includer
    if [[ -z ${rank[$to]+x} ]]; then
      echo "$file:$line: includes $target, outside every layer"
      status=1
    elif ((rank[$to] > rank[$from])); then
      echo "$file:$line: includes $target: $to is above $from in the layer order"
      status=1
    fi
    for rule in "${forbidden[@]}"; do
      if [[ $rule == "$from:$to" ]]; then
        echo "$file:$line: includes $target: $from/ includes no $to/ header"
        status=1
      fi
    done
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$dir" || true)
done < <(find src -mindepth 1 -maxdepth 1 -type d | sort)

if ((status == 0)); then
  echo "check-layers: $folders folders of src/, no include against the layer order"
else
  echo "check-layers: FAILED (the order is in docs/DESIGN.md §3)"
fi
exit $status
