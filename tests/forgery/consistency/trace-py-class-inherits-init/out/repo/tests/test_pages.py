class TestPages(dict):
    def test_size(self):
        assert False
