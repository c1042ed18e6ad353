if __name__ == '__main__':
    def test_size():
        assert False
    def test_last_page():
        assert False
