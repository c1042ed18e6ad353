def test_size():
    assert False

def test_last_page():
    assert False

del test_size, test_last_page
