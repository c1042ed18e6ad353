def helper():
    class TestPages:
        def test_size(self):
            assert False
        def test_last_page(self):
            assert False
