import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

# Kept for reference; pytest does not collect it.
collect_ignore = ["legacy"]


@pytest.fixture
def records():
    return list(range(250))
