# Shared set-up for scripts/test, scripts/build and scripts/run: sourced, never run.
# Functions only; each works from the repository's root (the scripts cd there first).

# naiko_find_python: print a Python >= 3.11 ($PYTHON first, then python3.13 ... python), or fail.
naiko_find_python() {
  local candidate
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3 python; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || continue
    if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# naiko_sam_venv PYTHON: the AWS SAM CLI in .venv-sam/ (it pins its own dependencies, so it
# gets a virtualenv of its own), installed with PYTHON on first use.
naiko_sam_venv() {
  if [ ! -x .venv-sam/bin/sam ]; then
    echo "== creating .venv-sam (AWS SAM CLI; first time: a minute)" >&2
    "$1" -m venv .venv-sam
    .venv-sam/bin/python -m pip install -q --upgrade pip >/dev/null
    .venv-sam/bin/python -m pip install -q aws-sam-cli
  fi
}

naiko_python312_works() {
  python3.12 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1
}

# naiko_python312_on_path: make `python3.12` runnable, as `sam build` needs for the layer's
# Makefile without a container. Keeps what is on PATH when it works; else takes an installed
# 3.12: pyenv's (added to PYENV_VERSION beside the current version), one under ~/.pyenv/versions,
# or uv's (`uv python find 3.12`); those two are linked as .cache/python3.12-bin/python3.12 and
# put first on PATH (only python3.12 itself: python3 stays what it was). Exports what it
# changes; returns 1 when no python3.12 is installed.
naiko_python312_on_path() {
  naiko_python312_works && return 0
  if command -v pyenv >/dev/null 2>&1; then
    local py312 current
    py312="$(pyenv versions --bare 2>/dev/null | grep -E '^3\.12(\.[0-9]+)?$' | sort -V | tail -n 1 || true)"
    if [ -n "$py312" ]; then
      current="$(pyenv version-name 2>/dev/null || true)"
      export PYENV_VERSION="${current:+$current:}$py312"
      naiko_python312_works && return 0
    fi
  fi
  local candidate found=""
  for candidate in "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    [ -x "$candidate" ] && found="$candidate"
  done
  if [ -z "$found" ] && command -v uv >/dev/null 2>&1; then
    found="$(uv python find 3.12 2>/dev/null || true)"
  fi
  if [ -n "$found" ] && "$found" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' \
      >/dev/null 2>&1; then
    mkdir -p .cache/python3.12-bin
    ln -sf "$found" .cache/python3.12-bin/python3.12
    export PATH="$PWD/.cache/python3.12-bin:$PATH"
    naiko_python312_works && return 0
  fi
  return 1
}

NAIKO_PYTHON312_HELP="python3.12 is not installed (sam build compiles the Lambda layer with it).
Install one, any way: apt-get install python3.12 (Debian 13, Ubuntu 24.04), brew install
python@3.12, pyenv install 3.12, uv python install 3.12, or python.org's installer; or build in
Docker's Lambda image instead: scripts/build --use-container"
