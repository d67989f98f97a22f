/**
 * The seed plan's ready cards (seed-plan.ts): a binary min-heap of names by their position in
 * the seed file, so a topological order keeps file order wherever references allow.
 */
export class FileOrderQueue {
  readonly #heap: string[] = [];
  readonly #at: (name: string) => number;

  constructor(at: (name: string) => number) {
    this.#at = at;
  }

  push(name: string): void {
    const heap = this.#heap;
    heap.push(name);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (this.#at(heap[parent] as string) <= this.#at(name)) break;
      heap[i] = heap[parent] as string;
      heap[parent] = name;
      i = parent;
    }
  }

  pop(): string | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && this.#at(heap[l] as string) < this.#at(heap[min] as string)) min = l;
      if (r < heap.length && this.#at(heap[r] as string) < this.#at(heap[min] as string)) min = r;
      if (min === i) break;
      [heap[i], heap[min]] = [heap[min] as string, heap[i] as string];
      i = min;
    }
    return top;
  }
}
