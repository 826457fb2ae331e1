// Loaded by mocha before every test file: tests run quiet unless LOG_LEVEL says otherwise.
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'silent';
