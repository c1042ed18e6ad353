collect_ignore = ["test_pages.py"]
