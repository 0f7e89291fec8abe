// The `Filter` typings (checked by `npm run typecheck`, which covers tests-js/): misspelt
// operators, operators at the wrong level and wrong operand types are type errors; every
// `@ts-expect-error` below fails the typecheck if the line stops being an error. At run time the
// same filters are refused by the core with HV_INVALID_ARGUMENT on both backends, and the
// well-typed ones are accepted.
import { describe, expect, it } from 'vitest';
import type { Filter, ListOptions, SearchOptions } from 'horosvec';
import { backends } from './helpers/backends.js';

const accepted: Filter[] = [
  {},
  { source: 'wordnet' },
  { year: { $gte: 1990, $lt: 2000 }, 'user.id': 7 },
  { tag: { $in: ['a', 'b'] }, n: { $nin: [1, null, true] } },
  { $or: [{ tag: { $contains: 'a' } }, { $not: { draft: true } }] },
  { source: 'x', $and: [{ a: 1 }, { b: { $exists: false } }] },
  { user: { id: 5, name: { $ne: 'bob' } } },
  { n: { $not: { $gt: 3 } }, t: null, b: true, s: { $lte: 'm' } },
];

// each call must be a type error: `typed` takes a Filter
const typed = (f: Filter): unknown => f;
const typeErrors: unknown[] = [
  // @ts-expect-error a misspelt field operator
  typed({ year: { $gtee: 1 } }),
  // @ts-expect-error a misspelt field operator among good ones
  typed({ year: { $gte: 1, $lte: 2, $inn: [3] } }),
  // @ts-expect-error a misspelt logical operator
  typed({ $andd: [{ a: 1 }] }),
  // @ts-expect-error a misspelt logical operator
  typed({ $nott: { a: 1 } }),
  // @ts-expect-error a field operator at the top level
  typed({ $gte: 1 }),
  // @ts-expect-error $in takes an array
  typed({ tag: { $in: 'a' } }),
  // @ts-expect-error $exists takes a boolean
  typed({ tag: { $exists: 1 } }),
  // @ts-expect-error $gt takes a number or a string
  typed({ year: { $gt: true } }),
  // @ts-expect-error $and takes an array of filters
  typed({ $and: { a: 1 } }),
  // @ts-expect-error a misspelt operator deep inside
  typed({ $or: [{ a: { $exist: true } }] }),
  // @ts-expect-error an array is not a condition
  typed({ tags: ['a'] }),
];

// @ts-expect-error a misspelt operator inside search options
const misspeltSearch: SearchOptions = { k: 1, filter: { y: { $lte: 1, $inn: [1] } } };
// @ts-expect-error a misspelt option name
const misspeltOption: SearchOptions = { k: 1, filtr: {} };
// @ts-expect-error ids are record ids
const badIds: SearchOptions = { k: 1, ids: [{ id: 1 }] };
const goodSearch: SearchOptions = { k: 1, filter: { y: { $lte: 1 } }, ids: [1, 'a'] };
// @ts-expect-error a misspelt list option
const misspeltList: ListOptions = { limt: 5 };
const goodList: ListOptions = { filter: { a: 1 }, limit: 5, cursor: null, includeVectors: true };

describe.each(backends)('%s backend: the Filter typings agree with the core', (_name, hv) => {
  it('the well-typed filters are accepted, the ill-typed ones refused', async () => {
    const col = hv.Collection.create({ dim: 2 });
    await col.add([1, 2], [[0, 0], [1, 1]], [{ source: 'x', year: 1995 }, { user: { id: 5 } }]);
    for (const f of accepted) expect(typeof (await col.count(f))).toBe('number');
    for (const f of typeErrors) {
      const e = await col.count(f as Filter).then(() => null, (err) => err);
      expect(e?.code, JSON.stringify(f)).toBe('HV_INVALID_ARGUMENT');
    }
    for (const o of [misspeltSearch, misspeltOption, badIds]) {
      await expect(col.search([0, 0], o)).rejects.toMatchObject({ code: 'HV_INVALID_ARGUMENT' });
    }
    expect(await col.search([0, 0], goodSearch)).toEqual([]);
    await expect(col.list(misspeltList)).rejects.toMatchObject({ code: 'HV_INVALID_ARGUMENT' });
    expect((await col.list(goodList)).records).toEqual([]);
    await col.close();
  });
});
