// Live partial JSON in JS. The wasm reader (`PartialJsonCore`) reads each piece of text once
// and says what it changed; `PartialState` applies those changes copy-on-write: each piece
// makes a new object only along the path it changed, and every subtree it did not touch keeps
// its identity (`===`), so React and other frameworks re-render only what changed. A piece
// costs its own length in the reader, plus here one copy of each container on the path it
// changed: a piece that grows the 3,000th element of an array copies that array once.
//
// A change list is one flat array, read left to right, applied where the path of open
// containers ends (the top):
//   "text"              append `text` to the string at the top
//   0                   the top is complete; its parent is the top again
//   1, value            add `value` to the array at the top (or as the document's value)
//   2, value            the same, and `value` (a string so far, [] or {}) is the new top
//   3, "key", value     set member `key` of the object at the top
//   4, "key", value     the same, and `value` is the new top

/** A value built from change lists, copy-on-write. */
export class PartialState {
  /** The value so far: `undefined` until something can be shown. */
  value = undefined;
  /** The open containers and string from the document's value down: `{ node, key }`, `key`
   * its key or index in the parent. */
  #open = [];

  /** Applies one piece's changes; the new value (the same object when nothing changed). */
  apply(changes) {
    const open = this.#open;
    // How many of `open`, from the document's value down, are copies made in this call (and
    // so free to change): each container on the changed path is copied at most once per call.
    let fresh = 0;
    const own = (depth) => {
      for (; fresh <= depth; fresh++) {
        const entry = open[fresh];
        entry.node = Array.isArray(entry.node) ? entry.node.slice() : { ...entry.node };
        this.#link(fresh, entry.node);
      }
    };
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i];
      if (typeof change === "string") {
        // Strings are immutable: the grown one replaces the old in its (copied) parent.
        const depth = open.length - 1;
        own(depth - 1);
        open[depth].node += change;
        this.#link(depth, open[depth].node);
        continue;
      }
      if (change === 0) {
        open.pop();
        fresh = Math.min(fresh, open.length);
        continue;
      }
      const key = change >= 3 ? changes[++i] : undefined;
      const value = changes[++i];
      const depth = open.length - 1;
      let at = key;
      if (depth < 0) {
        this.value = value;
      } else {
        own(depth);
        const parent = open[depth].node;
        if (Array.isArray(parent)) at = parent.push(value) - 1;
        else setMember(parent, key, value);
      }
      // A new value is the engine's own fresh object: free to change in this call.
      if (change === 2 || change === 4) fresh = open.push({ node: value, key: at });
    }
    return this.value;
  }

  /** Puts `node` (open entry `depth`) into its parent, or makes it the document's value. */
  #link(depth, node) {
    if (depth === 0) this.value = node;
    else setMember(this.#open[depth - 1].node, this.#open[depth].key, node);
  }
}

/** `target[key] = value`, except that a `"__proto__"` key is an own member (as `JSON.parse`
 * makes it), never the prototype. */
function setMember(target, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** Binds `PartialJson` and `parsePartialJson` to one module instance's exports. */
export function makePartial(PartialJsonCore, partialJsonChanges) {
  /**
   * JSON text read in pieces (strings, or bytes split anywhere), and the value so far after
   * each: strings grow, arrays and objects gain members, numbers and literals appear complete.
   * Text that stops being JSON throws (`code` "invalid_json", the byte offset in the message),
   * and so does every later call; `value` stays the last good one.
   */
  class PartialJson {
    #core;
    #state = new PartialState();
    /** A high surrogate that ended the last string piece, waiting for its low half. */
    #held = "";

    constructor(options) {
      this.#core = new PartialJsonCore(options);
    }

    /** The value so far: `undefined` until something can be shown. */
    get value() {
      return this.#state.value;
    }

    /** Reads the next piece (a string, or UTF-8 bytes split anywhere); the value so far. */
    push(piece) {
      if (piece instanceof Uint8Array) {
        // A high surrogate held back from a string piece goes first, on its own.
        if (this.#held) this.#flushHeld();
        return this.#state.apply(this.#core.pushBytes(piece));
      }
      if (typeof piece !== "string") {
        // A TypeError, with the code and path every error of the package carries.
        const error = new TypeError("PartialJson.push takes a string or a Uint8Array");
        error.code = "invalid_input";
        error.path = "piece";
        throw error;
      }
      let text = this.#held + piece;
      this.#held = "";
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.#held = text.slice(-1);
        text = text.slice(0, -1);
      }
      return this.#state.apply(this.#core.push(text));
    }

    /** Ends the text: the final value; throws when it is not complete JSON. */
    finish() {
      if (this.#held) this.#flushHeld();
      return this.#state.apply(this.#core.finish());
    }

    /** Reads the held high surrogate with no low half after it (it reads as U+FFFD). */
    #flushHeld() {
      const held = this.#held;
      this.#held = "";
      this.#state.apply(this.#core.push(held));
    }

    /** Frees the wasm reader (also done when the object is garbage-collected). */
    free() {
      this.#core.free();
    }
  }

  /** What `text` shows, or its value when it is complete JSON; `undefined` when nothing can be
   * shown yet. Throws when the text cannot be the start of JSON. */
  function parsePartialJson(text, options) {
    return new PartialState().apply(partialJsonChanges(text, options));
  }

  return { PartialJson, parsePartialJson };
}
