export default defineConfig({
  test: { include: ['checks/**/*.check.js'] },
});
