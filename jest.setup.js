// Runs in every test file's realm (jest.preset.js setupFiles).
// jest runs each test file in its own V8 context, but Node's built-ins (fetch, AbortSignal, timers)
// live in Node's main realm and throw that realm's errors: a fetch aborted by a timeout rejects with a
// DOMException whose prototype chain ends at Node's Error.prototype, not the test realm's. Libraries
// that check `err instanceof Error` (the OpenAI SDK's castToError) then lose the error's name, so an
// SDK timeout would look like a connection failure — never in production, where there is one realm.
// Make `instanceof Error` recognise the main realm's errors too.
const MainRealmError = structuredClone(new Error()).constructor;
if (MainRealmError !== Error) {
  const isInstance = Function.prototype[Symbol.hasInstance];
  Object.defineProperty(Error, Symbol.hasInstance, {
    configurable: true,
    value(value) {
      return isInstance.call(this, value) || (this === Error && isInstance.call(MainRealmError, value));
    },
  });
}
