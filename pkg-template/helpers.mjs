// JS conveniences over the wasm Accumulator: `streamEvents` (an async iterator over a
// ReadableStream of bytes) and `AccumulatorStream` (a TransformStream). Both release the reader
// and free the wasm object on completion, error and cancel.

/** Binds the helpers to one module instance's `Accumulator` class. */
export function makeHelpers(Accumulator) {
  /**
   * Yields every event of `body` and ends with `{ type: "final", message }`.
   * A reader error is reported through `abort` (the text so far is kept) and rethrown after the
   * final message has been yielded.
   */
  async function* streamEvents(body, options) {
    const acc = new Accumulator(options);
    const reader = body.getReader();
    let failure;
    try {
      for (;;) {
        let step;
        try {
          step = await reader.read();
        } catch (err) {
          failure = err;
          yield* acc.abort(String(err && err.message ? err.message : err));
          break;
        }
        if (step.done) break;
        yield* acc.push(step.value);
      }
      if (!failure) yield* acc.flush();
      yield { type: "final", message: acc.finish() };
    } finally {
      try { reader.releaseLock(); } catch { /* a pending read keeps the lock; cancel releases it */ }
      acc.free();
    }
    if (failure) throw failure;
  }

  /**
   * `response.body.pipeThrough(new AccumulatorStream())`: bytes in, events out, and a last
   * `{ type: "final", message }`. `.message` holds the final message once the stream has ended.
   */
  class AccumulatorStream extends TransformStream {
    constructor(options) {
      let acc = new Accumulator(options);
      const release = () => { if (acc) { acc.free(); acc = undefined; } };
      const self = {};
      super({
        transform(chunk, controller) {
          for (const event of acc.push(chunk)) controller.enqueue(event);
        },
        flush(controller) {
          for (const event of acc.flush()) controller.enqueue(event);
          const message = acc.finish();
          self.message = message;
          controller.enqueue({ type: "final", message });
          release();
        },
        cancel() { release(); },
      });
      Object.defineProperty(this, "message", { get: () => self.message });
    }
  }

  return { streamEvents, AccumulatorStream };
}
