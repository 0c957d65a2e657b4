#!/usr/bin/env bash
# End-to-end test in a real VS Code (code-server in headless Chromium): installs the packaged
# .vsix and a stand-in OpenEdge extension into a fresh profile, opens a copy of the loan
# example with mistakes added, and drives the editor (driver.ts). The exit code is the driver's.
#
# Needs: scripts/setup-e2e.sh (Chromium, code-server), `npm run package`, `npm run build -- --tests`.
# Screenshots go to test-results/. usage: test/e2e/run.sh
# The steps listed in EXPECTED_FAILURES (driver.ts) are skipped; ABL_E2E_EXPECTED_FAILURES=run runs
# them and fails the run if one of them passes (then it is removed from the list).
set -uo pipefail
extension_dir=$(cd "$(dirname "$0")/../.." && pwd)
repo_dir=$(cd "$extension_dir/.." && pwd)
vsix=$extension_dir/dist/abl-agent-blueprint.vsix
code_server=$extension_dir/test/e2e/code-server/node_modules/.bin/code-server
driver=$extension_dir/dist/test/e2e/driver.js
results=$extension_dir/test-results
fixtures=$extension_dir/test/e2e/fixtures

for needed in "$vsix" "$code_server" "$driver"; do
  [[ -e $needed ]] || { echo "e2e: missing $needed (see the usage above)" >&2; exit 2; }
done

run_dir=$(mktemp -d "${TMPDIR:-/tmp}/abl-e2e.XXXXXX")
server_pid=
driver_pid=

# Every process of the run carries ABL_E2E_RUN in its environment: code-server and its children,
# the terminals' processes (which get sessions of their own), the driver and its browser.
run_processes() {
  env -u ABL_E2E_RUN grep -lsz "^ABL_E2E_RUN=$run_dir\$" /proc/[0-9]*/environ | cut -d/ -f3
}
stop_everything() {
  [[ -n $driver_pid ]] && kill -TERM "$driver_pid" 2>/dev/null
  if [[ -n $server_pid ]]; then
    kill -TERM -- "-$server_pid" 2>/dev/null # it leads its own process group (setsid)
    for _ in $(seq 50); do pgrep -g "$server_pid" >/dev/null || break; sleep 0.1; done
  fi
  local leftover
  leftover=$(run_processes)
  [[ -n $leftover ]] && kill -KILL $leftover 2>/dev/null
  rm -rf "$run_dir"
}
trap stop_everything EXIT
trap 'exit 130' INT TERM

export ABL_E2E_RUN=$run_dir
# Everything code-server writes stays in the run folder.
export XDG_CONFIG_HOME=$run_dir/xdg/config XDG_DATA_HOME=$run_dir/xdg/data XDG_STATE_HOME=$run_dir/xdg/state
export TMPDIR=$run_dir/tmp
mkdir -p "$TMPDIR" "$run_dir/user-data/User" "$run_dir/extensions"

# No `abl` on PATH (nor the repository's virtual environment), so the server that runs is the
# one bundled in the .vsix.
clean_path=
IFS=: read -ra path_dirs <<< "$PATH"
for dir in "${path_dirs[@]}"; do
  [[ -z $dir || -e $dir/abl || $dir == "$repo_dir"/* ]] && continue
  clean_path=${clean_path:+$clean_path:}$dir
done
export PATH=$clean_path
unset VIRTUAL_ENV PYTHONPATH
if command -v abl >/dev/null; then echo "e2e: an abl is still on PATH: $(command -v abl)" >&2; exit 2; fi

workspace=$run_dir/workspace
cp -r "$repo_dir/examples/loan-supervisor" "$workspace"
cp "$fixtures"/workspace/* "$workspace/"

# In a browser VS Code saves files a second after each edit; the scenario edits and reverts as on
# the desktop, where files are saved when the user says so. A U+2028 the scenario types stays in
# the text (VS Code would offer to remove it).
cat > "$run_dir/user-data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "security.workspace.trust.enabled": false,
  "terminal.integrated.gpuAcceleration": "off",
  "outline.collapseItems": "alwaysCollapse",
  "editor.hover.delay": 100,
  "editor.unusualLineTerminators": "off",
  "files.autoSave": "off"
}
JSON

started=$SECONDS
# The stand-ins for an OpenEdge extension and the Python extension are installed as a user would
# install extensions: from .vsix files.
stand_ins=()
for fixture in openedge-abl python-extension; do
  stand_ins+=("$run_dir/$fixture.vsix")
  (cd "$fixtures/$fixture" && "$extension_dir/node_modules/.bin/vsce" package --no-dependencies \
    --allow-missing-repository --skip-license --out "$run_dir/$fixture.vsix" >> "$run_dir/install.log" 2>&1) ||
    { cat "$run_dir/install.log"; echo "e2e: packaging the $fixture stand-in failed" >&2; exit 2; }
done
# The interpreter the Python extension stand-in selects when asked to.
ABL_E2E_PYTHON=$(python3 -c 'import sys; print(sys.executable)')
export ABL_E2E_PYTHON
code_server_args=(--user-data-dir "$run_dir/user-data" --extensions-dir "$run_dir/extensions")
for extension in "$vsix" "${stand_ins[@]}"; do
  if ! "$code_server" "${code_server_args[@]}" --install-extension "$extension" >> "$run_dir/install.log" 2>&1; then
    cat "$run_dir/install.log"; echo "e2e: installing $extension failed" >&2; exit 2
  fi
done

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid "$code_server" "${code_server_args[@]}" --auth none --bind-addr "127.0.0.1:$port" \
  --disable-telemetry --disable-update-check --disable-workspace-trust --ignore-last-opened \
  "$workspace" > "$run_dir/code-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 150); do
  curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$run_dir/code-server.log"; echo "e2e: code-server exited" >&2; exit 2; }
  sleep 0.2
done

rm -rf "$results" && mkdir -p "$results"
# In the background so that a signal reaches the traps at once; no pipe after the driver: its
# exit code is the test's result.
node "$driver" --url "http://127.0.0.1:$port/?folder=$workspace" --workspace "$workspace" --results "$results" \
  --logs "$run_dir/user-data/logs" --extensions "$run_dir/extensions" &
driver_pid=$!
wait "$driver_pid"
status=$?
driver_pid=
cp "$run_dir/code-server.log" "$results/code-server.log"
find "$run_dir/user-data/logs" -name '*ABL*' -exec cp {} "$results/" \; 2>/dev/null
echo "e2e: exit $status in $((SECONDS - started)) s (screenshots in ${results#"$extension_dir"/})"
exit $status
