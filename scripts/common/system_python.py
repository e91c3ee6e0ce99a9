"""One way for a script to get the Debian Python modules it needs (numpy, scipy,
matplotlib): the first python3 on PATH is often one without them (a pyenv build), while
Debian's packages (`bash scripts/setup.sh --measure`) are for /usr/bin/python3.

`require("numpy")` at the top of a script returns when the modules import here; else it
runs the same script again under /usr/bin/python3 (as `-m scripts.x.y` when it was started
that way, with the repository root on PYTHONPATH, so the package still imports), or exits
with one line naming what is missing."""

import importlib.util
import os
import sys

from scripts.common import ROOT

SYSTEM_PYTHON = "/usr/bin/python3"


def missing(*modules):
    """The names among modules that this interpreter cannot import."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def require(*modules):
    """Returns when every module imports here; else re-runs the calling script under the
    system interpreter, or exits 2 naming the missing modules when that is this one."""
    lacking = missing(*modules)
    if not lacking:
        return
    if os.path.exists(SYSTEM_PYTHON) and \
            os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
        spec = getattr(sys.modules["__main__"], "__spec__", None)
        if spec is not None and spec.name and spec.name != "__main__":
            argv = [SYSTEM_PYTHON, "-m", spec.name] + sys.argv[1:]
        else:
            argv = [SYSTEM_PYTHON] + sys.argv
        os.execve(SYSTEM_PYTHON, argv, env)
    prog = os.path.basename(sys.argv[0])
    sys.exit(f"{prog}: python modules missing: {', '.join(lacking)} "
             f"(bash scripts/setup.sh --measure installs them for {SYSTEM_PYTHON})")
