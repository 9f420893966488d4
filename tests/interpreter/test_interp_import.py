"""The interpreter stays light: importing it loads no numpy. (Its speed is measured by
benchmarks/interpreter.py, not by timed tests.)"""

from __future__ import annotations

import subprocess
import sys


def test_interpreter_import_loads_no_numpy():
    code = "import sys; import autotrace.interpreter; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
