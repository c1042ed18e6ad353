def test_size():
    assert 1 == 2


def test_ｓize():
    pass
