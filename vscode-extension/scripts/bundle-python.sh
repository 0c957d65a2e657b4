#!/usr/bin/env bash
# Vendors the language server into bundled/libs: the `abl` wheel built from this repository and
# its runtime dependencies pinned by bundled-requirements.txt. The extension runs it as
# `python -m abl lsp` with PYTHONPATH=bundled/libs, so users need only a Python >= 3.10.
#
# The bundle is pure Python, so one .vsix serves every platform: RapidFuzz and PyYAML ship
# compiled accelerators that only load on the interpreter and platform they were built for, and
# both packages fall back to their own pure-Python implementations without them. Dropping the
# accelerators makes every platform run the same code (the server uses `yaml.SafeLoader`, the
# pure-Python loader, either way).
#
# usage: bundle-python.sh            (PYTHON: the Python that builds the wheel; default: the
#                                     repository's .venv, else python3)
set -euo pipefail
extension_dir=$(cd "$(dirname "$0")/.." && pwd)
repo_dir=$(cd "$extension_dir/.." && pwd)
libs=$extension_dir/bundled/libs
requirements=$extension_dir/bundled-requirements.txt
if [[ -z ${PYTHON:-} ]]; then
  if [[ -x $repo_dir/.venv/bin/python ]]; then PYTHON=$repo_dir/.venv/bin/python; else PYTHON=python3; fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The wheel, built with the Python's own hatchling when it has one (no download needed).
build_isolation=()
"$PYTHON" -c 'import hatchling' 2>/dev/null && build_isolation=(--no-build-isolation)
"$PYTHON" -m pip wheel --quiet --no-deps "${build_isolation[@]}" --wheel-dir "$work/wheel" "$repo_dir"
wheel=$(ls "$work"/wheel/abl_tools-*.whl)

# Wheels only, chosen as for CPython 3.10 on Linux: the pure-Python files are the same in every
# platform's wheel, and the compiled ones are removed below.
rm -rf "$libs"
"$PYTHON" -m pip install --quiet --target "$libs" --only-binary=:all: \
  --implementation cp --python-version 3.10 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --requirement "$requirements" "$wheel"

# Every bundled distribution pinned, and every requirement met on every supported Python.
"$PYTHON" "$extension_dir/scripts/check_bundle.py" "$libs" "$requirements"

# Compiled accelerators, console scripts and byte code: none of them are portable.
find "$libs" \( -name '*.so' -o -name '*.pyd' -o -name '*.dylib' \) -delete
find "$libs" -depth -name '__pycache__' -type d -exec rm -rf {} +
rm -rf "$libs/bin"

echo "bundle-python: $(ls -d "$libs"/*.dist-info | wc -l) distributions, $(du -sh "$libs" | cut -f1) in bundled/libs"
