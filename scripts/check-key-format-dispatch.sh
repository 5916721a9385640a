#!/usr/bin/env bash
# Fails when a file of src/ outside the key-file module (src/groth16/key_file*) tells key
# formats apart: compares against a KeyFormat value, sniffs a key file's format, or compares a
# path's extension with a key file's. Format and curve dispatch live in groth16/key_file.hpp.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='KeyFormat::k|detect_key_format\(|[!=]= *"\.(zkey|params)"'
hits=$(grep -rnE "$pattern" src --include='*.cpp' --include='*.hpp' --include='*.cu' \
         --include='*.cuh' | grep -v '^src/groth16/key_file' || true)
if [[ -n $hits ]]; then
  echo "key format dispatch outside src/groth16/key_file*:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "key format dispatch: only in src/groth16/key_file*"
