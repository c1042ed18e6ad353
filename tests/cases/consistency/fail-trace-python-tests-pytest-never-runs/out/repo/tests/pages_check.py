def test_empty():
    assert False
