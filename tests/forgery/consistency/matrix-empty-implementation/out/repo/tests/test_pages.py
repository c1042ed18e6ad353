def test_size():
    assert 100 <= 100
