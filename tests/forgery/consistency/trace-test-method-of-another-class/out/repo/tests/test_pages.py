class TestPages:
    pass

class TestOther:
    def test_size(self):
        assert False
    def test_last_page(self):
        assert False
