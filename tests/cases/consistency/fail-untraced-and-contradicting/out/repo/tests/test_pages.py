def test_size():
    pass


def test_last_page():
    pass
