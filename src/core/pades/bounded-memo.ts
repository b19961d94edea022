/**
 * What verification works out once and asks again (a certificate parsed, a public key read, an
 * issuer's signature checked): kept by key, at most `limit` of them. When full it forgets them all
 * rather than tracking which is oldest: what a file or a run asks again is a few at a time, and a
 * bound matters more than the odd entry made twice.
 */
export class BoundedMemo<Value> {
  private readonly values = new Map<string, Value>();

  constructor(private readonly limit: number) {}

  /** The value kept for `key`, or `make()`'s, kept from now on (undefined is never kept). */
  get(key: string, make: () => Value): Value {
    let value = this.values.get(key);
    if (value === undefined) {
      value = make();
      if (this.values.size >= this.limit) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }
}
