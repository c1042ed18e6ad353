def test_size():
    assert True
def test_last_page():
    assert True
)(
