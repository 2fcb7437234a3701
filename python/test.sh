#!/usr/bin/env bash
# The Python package's tests on a fresh machine: a virtual environment (KOLMO_PY_VENV, default
# target/python-venv at the repository's root) with maturin, NumPy, SciPy, matplotlib and pytest
# from PyPI, the package built and installed from this directory (`pip install ./python`), then pytest.
# Needs python3 with the venv module and cargo.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${KOLMO_PY_VENV:-$here/../target/python-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin>=1.5,<2" "numpy>=1.20" scipy matplotlib pytest
# The package's own build directory (a workspace of its own, outside the main one).
PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}" "$venv/bin/python" -m pip install --quiet --no-build-isolation "$here"
cd "$here/tests"
"$venv/bin/python" -m pytest -q "$@"
