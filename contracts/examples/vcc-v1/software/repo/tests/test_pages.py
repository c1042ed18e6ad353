import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from export.pages import PAGE_SIZE, BadCursor, page  # noqa: E402


class PageTests(unittest.TestCase):
    def test_page_size(self):
        chunk, _ = page(list(range(250)))
        self.assertEqual(len(chunk), PAGE_SIZE)

    def test_cursor_chain(self):
        records = list(range(250))
        seen, cursor = [], None
        while True:
            chunk, cursor = page(records, cursor)
            seen.extend(chunk)
            if cursor is None:
                break
        self.assertEqual(seen, records)

    def test_empty_and_exact(self):
        self.assertEqual(page([]), ([], None))
        self.assertIsNone(page(list(range(100)))[1])

    def test_bad_cursor(self):
        with self.assertRaises(BadCursor):
            page([1, 2, 3], "not a cursor!")


if __name__ == "__main__":
    unittest.main()
