import pytest


class TestPages:
    @pytest.mark.parametrize("n", [1, 100])
    def test_size(self, n):
        assert n <= 100


def test_last_page():
    pass
