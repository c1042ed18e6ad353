def test_size():
    assert False
def test_last_page():
    assert False
test_size = test_last_page = None
