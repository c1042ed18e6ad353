class Base:
    def __init__(self):
        pass


class TestPages(Base):
    def test_size(self):
        assert False
