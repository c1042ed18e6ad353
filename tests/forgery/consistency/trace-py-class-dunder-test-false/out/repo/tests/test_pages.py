class TestPages:
    __test__ = False

    def test_size(self):
        assert False
