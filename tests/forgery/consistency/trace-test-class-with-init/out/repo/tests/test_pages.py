class TestPages:
    def __init__(self):
        pass
    def test_size(self):
        assert False
    def test_last_page(self):
        assert False
