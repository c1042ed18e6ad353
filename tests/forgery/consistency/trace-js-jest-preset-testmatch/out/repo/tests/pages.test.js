test('test_size', () => { throw new Error('x'); });
