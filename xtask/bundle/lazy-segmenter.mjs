// Injected into the app bundle for every `Intl.Segmenter` (xtask/build.mjs).
// string-width, wrap-ansi, slice-ansi, ansi-tokenize and ink each make a
// segmenter when they load; the first one loads ICU's break-iterator data,
// about 10 ms and 4 MB. This one makes the real segmenter when it is first
// used, and text that needs no segmenting never uses it (the simple-text fast
// path of Grove's forks of string-width and ansi-tokenize, packages/*/README.md).
class LazySegmenter {
  #options;
  #real;

  constructor(...options) {
    this.#options = options;
  }

  #segmenter() {
    this.#real ??= new globalThis.Intl.Segmenter(...this.#options);
    return this.#real;
  }

  segment(text) {
    return this.#segmenter().segment(text);
  }

  resolvedOptions() {
    return this.#segmenter().resolvedOptions();
  }

  static supportedLocalesOf(...args) {
    return globalThis.Intl.Segmenter.supportedLocalesOf(...args);
  }
}

export { LazySegmenter as 'Intl.Segmenter' };
