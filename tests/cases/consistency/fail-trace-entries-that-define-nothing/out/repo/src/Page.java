class Page { void testSize() {} }
