import unittest
from unittest import mock

import pytest

from pages import PAGE_SIZE, page

pytestmark = [pytest.mark.slow]


class TestPages:
    @pytest.mark.parametrize("n", [0, 1, 100, 250])
    def test_size(self, n):
        chunk, _ = page(list(range(n)))
        assert len(chunk) <= PAGE_SIZE

    def test_last_page(self, records):
        _, cursor = page(records, "200")
        assert cursor is None


def check_empty():
    assert page([]) == ([], None)


class Base(unittest.TestCase):
    def setUp(self):
        self.records = list(range(10))


class CursorTests(Base):
    @mock.patch("pages.PAGE_SIZE", 100)
    def test_bad_cursor(self):
        with self.assertRaises(ValueError):
            page(self.records, "not a cursor")
