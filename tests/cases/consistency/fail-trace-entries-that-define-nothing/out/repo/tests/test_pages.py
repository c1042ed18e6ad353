# def test_size(): to do
LATER = "def test_last_page(): pass"
