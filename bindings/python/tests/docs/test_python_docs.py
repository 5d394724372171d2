# SPDX-License-Identifier: MIT
"""docs/python.md, run as written: its ```sh blocks in order in one shell,
from the top of a copy of the sources whose build/lib is this build's, with
HOME a scratch directory and PATH only Debian's; then every ```python block
with the interpreter of the virtual environment the sh blocks made. So
`pip install ./bindings/python` is proven to work offline, and every example
to run against the installed package (the source tree is not on the path).

The E2B example runs against the E2B emulator: the only configuration is
SBIO_CONFIG (the emulator's URLs) and E2B_API_KEY, as a user would have.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from e2b_emu import EMULATOR, KEY, Emulator

SOURCE = Path(os.environ.get("SBIO_TEST_SOURCE_DIR", ""))
LIBRARY = os.environ.get("SBIO_LIBRARY", "")


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", text, flags=re.S | re.M)


def _copy_binding(dst: Path) -> None:
    src = SOURCE / "bindings" / "python"
    listed = subprocess.run(
        ["git", "-C", str(src), "ls-files", "--cached", "--others", "--exclude-standard", "."],
        capture_output=True, text=True,
    )
    names = listed.stdout.split() if listed.returncode == 0 else []
    if not names:  # not a git checkout: everything but build products
        names = [
            str(p.relative_to(src)) for p in src.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and "build" not in p.parts
        ]
    for name in names:
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / name, dst / name)


@pytest.mark.skipif(not EMULATOR or not LIBRARY, reason="run through ctest (docs_python)")
def test_python_docs_run_as_written(tmp_path: Path) -> None:
    doc = (SOURCE / "docs" / "python.md").read_text()
    sh, py = _blocks(doc, "sh"), _blocks(doc, "python")
    assert sh and py
    tree = tmp_path / "sandboxio"
    _copy_binding(tree / "bindings" / "python")
    (tree / "build").mkdir()
    (tree / "build" / "lib").symlink_to(Path(LIBRARY).parent)
    home = tmp_path / "home"
    home.mkdir()
    for i, block in enumerate(py):
        (tmp_path / f"example{i}.py").write_text(block)

    script = ["set -euo pipefail", f"cd '{tree}'", *sh]
    script.append('"$HOME/.venv/sandboxio/bin/python" -c "import sandboxio; print(\'from\', sandboxio.__file__)"')
    for i in range(len(py)):
        script.append(f"echo '== example {i}'")
        script.append(f"\"$HOME/.venv/sandboxio/bin/python\" '{tmp_path}/example{i}.py'")

    emu = Emulator(tmp_path / "emu")
    try:
        env = {
            "HOME": str(home),
            "PATH": "/usr/bin:/bin",
            "LC_ALL": "C.UTF-8",
            "SBIO_CONFIG": str(emu.config()),
            "E2B_API_KEY": KEY,
        }
        r = subprocess.run(["bash", "-c", "\n".join(script)], env=env, capture_output=True, text=True, timeout=900)
        out = r.stdout
        assert r.returncode == 0, f"a documented command failed:\n{out[-3000:]}\n{r.stderr[-3000:]}"
        assert emu.live() == 0
        assert emu.creates() == 1
    finally:
        emu.stop()
    # What the reader sees.
    assert re.search(r"^0\.\d+\.\d+$", out, re.M), out
    assert f"from {home}/.venv/sandboxio/lib/" in out, "the examples did not use the installed package"
    assert "fake-0001 CONTAINER 0 hello" in out
    assert "SBX_E1000 - backend fake cannot meet the required isolation MICROVM" in out
    assert "SBX_E1302" in out
    assert "stdout b'1\\n'" in out and "exit 0" in out
    assert "/work/data/raw/blob.bin 256 False" in out
    assert "cancelled; the sandbox runs on: ok" in out
    assert re.search(r"^e2b +available +MICROVM +claimed MICROVM ", out, re.M), out
    assert "blocking" in out and "b'written'" in out
    assert KEY not in out + r.stderr
