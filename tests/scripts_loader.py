"""Load a script of the repository's `scripts/` folder as a module, for the tests that call its functions.

The scripts are not a package (they are run as files), so a test loads one by path. The module is
registered under its name before it runs, as dataclasses and `typing` resolve a class's module by name,
and one module object is shared by every test that asks for the same script.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str) -> ModuleType:
    """The module of `scripts/<name>.py`, loaded once per test process."""
    if (loaded := sys.modules.get(name)) is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
