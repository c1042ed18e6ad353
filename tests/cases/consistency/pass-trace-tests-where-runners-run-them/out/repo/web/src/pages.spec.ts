describe('pages', () => {
  describe('cursor', function () {
    it('is opaque', () => {});
  });
});
