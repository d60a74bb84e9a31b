#!/usr/bin/env bash
# Installs what the editor tests need: Neovim (Debian's), the VS Code extension's npm
# packages (compiled), pyright (in .tools/) and the headless VS Code the end-to-end test
# drives.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvim >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
fi

(cd vscode-extension && npm ci --no-audit --no-fund && npm run compile)

# pyright, for the test that type-checks Python code importing generated modules (mypy
# comes with the dev extras).
if ! command -v pyright >/dev/null 2>&1; then
  npm install --prefix .tools --no-audit --no-fund --no-save pyright@1.1.414 >/dev/null
fi

clients="${SHAPESCRIPT_CLIENTS:-}"
if [ -z "$clients" ]; then
  # The shared harnesses sit in a shared/clients folder beside the repository or above it.
  folder="$(pwd)"
  while [ "$folder" != "/" ] && [ -z "$clients" ]; do
    [ -f "$folder/shared/clients/vscode_probe/install.sh" ] && clients="$folder/shared/clients"
    folder="$(dirname "$folder")"
  done
  [ -z "$clients" ] && [ -f /work/shared/clients/vscode_probe/install.sh ] && clients=/work/shared/clients
fi
if [ -n "$clients" ] && [ -f "$clients/vscode_probe/install.sh" ]; then
  bash "$clients/vscode_probe/install.sh"
else
  echo "no VS Code probe at $clients: its end-to-end test will be skipped" >&2
fi
