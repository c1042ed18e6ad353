describe.skip('pages', () => {
  test('test_size', () => {});
  it('test_last_page', () => {});
});
