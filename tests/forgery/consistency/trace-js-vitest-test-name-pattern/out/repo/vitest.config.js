export default { test: { testNamePattern: "^other$" } };
