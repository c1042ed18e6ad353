describe('a', async () => {
  await null;
  test('test_size', () => {});
});
