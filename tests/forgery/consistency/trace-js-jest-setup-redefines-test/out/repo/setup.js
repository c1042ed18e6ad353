global.test = () => {};
