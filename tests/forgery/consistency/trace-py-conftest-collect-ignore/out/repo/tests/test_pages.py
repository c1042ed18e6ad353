def test_size():
    assert False
