#!/usr/bin/env bash
# Installs what the end-to-end tests need: Debian's headless Chromium and code-server 4.100.3
# (pinned by test/e2e/code-server/package-lock.json). Safe to run again: what is in place is kept.
set -euo pipefail
extension_dir=$(cd "$(dirname "$0")/.." && pwd)
code_server_dir=$extension_dir/test/e2e/code-server
code_server=$code_server_dir/node_modules/.bin/code-server
wanted_version=$(node -p "require('$code_server_dir/package.json').dependencies['code-server']")

missing_packages=()
for package in chromium ripgrep libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing_packages+=("$package")
done
if ((${#missing_packages[@]})); then
  echo "setup-e2e: installing ${missing_packages[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing_packages[@]}"
fi

# Asking code-server for its version makes it write a config file: keep that out of the home folder.
installed_version() {
  local scratch
  scratch=$(mktemp -d)
  XDG_CONFIG_HOME=$scratch XDG_DATA_HOME=$scratch "$code_server" --version 2>/dev/null | tail -1 | cut -d' ' -f1
  rm -rf "$scratch"
}
if [[ -x $code_server ]] && [[ $(installed_version) == "$wanted_version" ]]; then
  echo "setup-e2e: code-server $wanted_version already installed"
  exit 0
fi

# code-server's install step fetches a ripgrep binary from GitHub, which is unreachable here;
# @vscode/ripgrep first looks in its download cache under os.tmpdir(), so seed that cache with
# Debian's ripgrep, in a private TMPDIR.
install_tmp=$(mktemp -d)
trap 'rm -rf "$install_tmp"' EXIT
export TMPDIR=$install_tmp
ripgrep_cache=$TMPDIR/vscode-ripgrep-cache-1.15.11
mkdir -p "$ripgrep_cache" "$install_tmp/rg"
cp /usr/bin/rg "$install_tmp/rg/rg"
tar czf "$ripgrep_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$install_tmp/rg" rg

# Running as root, code-server's install step refuses to run without unsafe-perm; node-pty's
# install step runs `npx node-gyp`, which needs `yes` to fetch node-gyp without asking.
# XDG_* keep anything the install writes out of the home folder.
echo "setup-e2e: installing code-server $wanted_version (native modules compile; about a minute)"
started=$SECONDS
(
  cd "$code_server_dir"
  export npm_config_unsafe_perm=true npm_config_yes=true
  export XDG_CONFIG_HOME=$install_tmp/config XDG_DATA_HOME=$install_tmp/data XDG_STATE_HOME=$install_tmp/state
  npm ci --no-audit --no-fund --foreground-scripts > "$install_tmp/install.log" 2>&1
) || { tail -40 "$install_tmp/install.log"; echo "setup-e2e: code-server install failed" >&2; exit 1; }
[[ $(installed_version) == "$wanted_version" ]] || { echo "setup-e2e: code-server does not start" >&2; exit 1; }
echo "setup-e2e: code-server $wanted_version installed in $((SECONDS - started)) s"
