/** A binary min-heap on `key` (ties in insertion order): the in-process engine's delayed jobs, one array in all. */
export class MinHeap<T> {
  #items: { key: number; seq: number; value: T }[] = [];
  #seq = 0;

  get size(): number {
    return this.#items.length;
  }

  push(key: number, value: T): void {
    const items = this.#items;
    items.push({ key, seq: this.#seq++, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** The smallest key, without removing it. */
  peekKey(): number | undefined {
    return this.#items[0]?.key;
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (!top || !last) return undefined;
    if (items.length > 0) {
      items[0] = last;
      this.#sinkFrom(0);
    }
    return top.value;
  }

  clear(): void {
    this.#items = [];
  }

  #sinkFrom(start: number): void {
    const n = this.#items.length;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.#less(left, smallest)) smallest = left;
      if (right < n && this.#less(right, smallest)) smallest = right;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }

  #less(a: number, b: number): boolean {
    const x = this.#items[a];
    const y = this.#items[b];
    if (!x || !y) return false;
    return x.key < y.key || (x.key === y.key && x.seq < y.seq);
  }

  #swap(a: number, b: number): void {
    const items = this.#items;
    const x = items[a];
    const y = items[b];
    if (!x || !y) return;
    items[a] = y;
    items[b] = x;
  }
}
