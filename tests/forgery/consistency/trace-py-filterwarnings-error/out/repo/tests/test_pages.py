import warnings
warnings.warn("deprecated helper", DeprecationWarning)


def test_size():
    assert 100 <= 100
