def test_size():
    assert 1 == 2
