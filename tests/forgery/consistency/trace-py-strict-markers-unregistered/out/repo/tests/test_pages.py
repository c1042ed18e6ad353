import pytest


@pytest.mark.slow
def test_size():
    assert 100 <= 100
