def test_old():
    assert False
