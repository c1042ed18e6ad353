test('last page is short', () => {});
