/**
 * A promise whose work starts when it is first awaited (`then`, `catch`, `finally`), and never
 * when nobody asks: a server's Pythia threads load their WebAssembly only for a server that is
 * asked for Pythia (a request, /_cards/info, /metrics, the banner's proof keys). Every later
 * await shares the one start.
 */
export class OnDemand<T> implements Promise<T> {
  readonly [Symbol.toStringTag] = 'OnDemand';
  readonly #start: () => Promise<T>;
  #started: Promise<T> | undefined;
  /** The OnDemand this one maps (`map`): awaiting this one starts that one. */
  #source: OnDemand<unknown> | undefined;

  constructor(start: () => Promise<T>) {
    this.#start = start;
  }

  /** Whether anything has awaited it, or what it maps (its work has begun). */
  get started(): boolean {
    return this.#started !== undefined || this.#source?.started === true;
  }

  /** `f` of its value, itself on demand: awaiting the result starts this one. */
  map<U>(f: (value: T) => U): OnDemand<U> {
    const mapped = new OnDemand(() => this.#begin().then(f));
    mapped.#source = this;
    return mapped;
  }

  then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#begin().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#begin().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#begin().finally(onFinally);
  }

  #begin(): Promise<T> {
    return (this.#started ??= this.#start());
  }
}
