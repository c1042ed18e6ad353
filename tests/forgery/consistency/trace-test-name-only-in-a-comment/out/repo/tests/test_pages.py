# test_size: checks a page holds 100 records (to do)
# test_last_page: checks the last page has no cursor (to do)
"""def test_size(): written once the API settles."""
