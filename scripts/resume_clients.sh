#!/usr/bin/env bash
# Opt-in end-to-end test: the REAL Claude Code and Codex CLIs resume `compact run --append` output.
#
#   bash scripts/resume_clients.sh            # or: make test-resume
#
# Installs the pinned clients from the npm registry into ${RESUME_CACHE:-$HOME/.cache/compact-resume}
# (once; later runs reuse them), then runs tests/test_resume_clients.py and
# tests/test_resume_inflight.py (sessions ending with a call in flight), which point each client
# at a loopback fake of its API. When this machine can make a network namespace (root, `unshare`),
# the tests run inside one whose only device is loopback, so no byte can leave 127.0.0.1 even if
# a client ignored its proxy settings. Extra arguments go to pytest; RESUME_PYTHON names
# another interpreter than the checkout's .venv (a worktree sharing one venv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${RESUME_CACHE:-$HOME/.cache/compact-resume}"
PREFIX="$CACHE/npm"
CLAUDE_VERSION="${RESUME_CLAUDE_VERSION:-2.1.197}"
CODEX_VERSION="${RESUME_CODEX_VERSION:-0.171.0}"
CLAUDE="$PREFIX/node_modules/.bin/claude"
CODEX="$PREFIX/node_modules/.bin/codex"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/compact-resume.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT

log() { printf 'resume: %s\n' "$*" >&2; }

# The installed version of one client ("" when it is missing or does not run).
version_of() {
    HOME="$SCRATCH" CODEX_HOME="$SCRATCH/codex" "$1" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1 || true
}

if [[ "$(version_of "$CLAUDE")" != "$CLAUDE_VERSION" || "$(version_of "$CODEX")" != "$CODEX_VERSION" ]]; then
    command -v npm >/dev/null || { log "npm is needed to install the clients"; exit 1; }
    log "installing @anthropic-ai/claude-code@$CLAUDE_VERSION and @openai/codex@$CODEX_VERSION into $PREFIX"
    mkdir -p "$PREFIX"
    npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION"
    # Claude Code's postinstall copies the native binary over a placeholder; run it ourselves
    # when npm skipped install scripts.
    if [[ "$(version_of "$CLAUDE")" != "$CLAUDE_VERSION" ]]; then
        (cd "$PREFIX/node_modules/@anthropic-ai/claude-code" && node install.cjs)
    fi
fi
for pair in "$CLAUDE:$CLAUDE_VERSION" "$CODEX:$CODEX_VERSION"; do
    exe="${pair%:*}" want="${pair##*:}"
    got="$(version_of "$exe")"
    if [[ "$got" != "$want" ]]; then
        log "$exe reports version '${got:-none}', expected $want"
        exit 1
    fi
done
log "claude $CLAUDE_VERSION, codex $CODEX_VERSION"

cd "$ROOT"
export RESUME_CLAUDE="$CLAUDE" RESUME_CODEX="$CODEX"
export RESUME_CLAUDE_VERSION="$CLAUDE_VERSION" RESUME_CODEX_VERSION="$CODEX_VERSION"
# A short, fixed --basetemp: a reduced result's placeholder names its offload file by absolute
# path, and a result shorter than its placeholder is kept whole; under pytest's default
# /tmp/pytest-of-USER/pytest-NNNN/… the path grows with the run counter, and past pytest-999 the
# hybrid in-flight case kept every result of its retained rounds (nothing left to check).
BASETEMP="${RESUME_BASETEMP:-/tmp/compact-resume-$(id -u)}"
PYTEST=("${RESUME_PYTHON:-.venv/bin/python}" -m pytest -q -m resume_clients --basetemp "$BASETEMP" tests/test_resume_clients.py tests/test_resume_inflight.py "$@")
if unshare --net true 2>/dev/null && command -v ip >/dev/null; then
    log "running in a network namespace with loopback only"
    exec unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh "${PYTEST[@]}"
fi
log "no network namespace here (needs root and unshare): relying on dead proxies and disabled telemetry"
exec "${PYTEST[@]}"
