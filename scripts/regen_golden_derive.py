"""Regenerate the derive goldens in ``tests/golden/derive/`` from the real fixtures.

Run only when a *new* profile id is introduced (a profile's output never changes under the
same id): ``python scripts/regen_golden_derive.py``. Fixtures are found at
``$LEX_FIXTURES`` or ``../shared/fixtures`` relative to the repository root.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from tests.derive.golden_cases import regenerate

    fixtures = Path(os.environ.get("LEX_FIXTURES", ROOT.parent / "shared" / "fixtures")).resolve()
    for path in regenerate(fixtures, ROOT / "tests" / "golden" / "derive"):
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
