import sys


def test_size():
    assert 1 == 2


sys.modules[__name__].test_size = None
