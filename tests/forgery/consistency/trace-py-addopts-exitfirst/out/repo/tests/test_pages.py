def test_a():
    assert False


def test_size():
    assert 100 <= 100
