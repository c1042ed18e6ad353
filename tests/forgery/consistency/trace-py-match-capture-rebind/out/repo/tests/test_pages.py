def test_size():
    assert 1 == 2


match 1:
    case test_size:
        pass
