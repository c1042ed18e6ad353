module.exports = async () => ({ numFailingTests: 0 });
