// Type-level checks of npm/index.d.ts (checked by `npx tsc -p tsconfig.json`, not run): the id
// type parameter of Collection reaches hits, pages, get and the graph export, misuse does not
// compile (each `@ts-expect-error` fails the check if the line below it compiles), and
// isHorosvecError narrows `code`.
import {
  Collection,
  HorosvecError,
  isHorosvecError,
  openDatabase,
  type HorosvecErrorCode,
  type Id,
  type SearchHit,
} from 'horosvec';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

interface Doc {
  title: string;
}

export async function numericIds(): Promise<void> {
  const col = Collection.create<Doc, number>({ dim: 2 });
  await col.add([1, 2], [[0, 1], [1, 0]], [{ title: 'a' }, { title: 'b' }]);
  // @ts-expect-error a string id in a collection of number ids
  await col.add('x', [0, 1]);
  // @ts-expect-error metadata of the wrong shape
  await col.upsert(3, [0, 1], { name: 'c' });
  const hits = await col.search([0, 1], { k: 1, ids: [1, 2] });
  const id: number = hits[0].id;
  // @ts-expect-error an allow-list of string ids in a collection of number ids
  await col.search([0, 1], { k: 1, ids: ['1'] });
  // @ts-expect-error the same in searchSync
  col.searchSync([0, 1], { k: 1, ids: ['1'] });
  // @ts-expect-error a number id is not a string
  const asString: string = hits[0].id;
  const title: string | undefined = hits[0].metadata?.title;
  assertType<Equal<typeof hits, SearchHit<Doc, number>[]>>();
  assertType<Equal<(typeof hits)[number]['id'], number>>();
  const batch = await col.searchBatch([[0, 1]], { k: 1 });
  assertType<Equal<(typeof batch)[number][number]['id'], number>>();
  const page = await col.list({ limit: 10 });
  assertType<Equal<(typeof page.records)[number]['id'], number>>();
  col.get(1);
  // @ts-expect-error get by a string id
  col.get('1');
  const graph = await col.exportGraph();
  assertType<Equal<(typeof graph.ids)[number], number>>();
  await col.delete([1]);
  void [id, asString, title];
}

export async function defaults(): Promise<void> {
  // without type arguments: ids are string | number, metadata unknown
  const col = Collection.create({ dim: 2 });
  await col.add(['a', 7], [[0, 1], [1, 0]]);
  const hits = col.searchSync([0, 1], { k: 2 });
  assertType<Equal<(typeof hits)[number]['id'], Id>>();
  assertType<Equal<(typeof hits)[number]['id'], string | number>>();
  const strings = await Collection.fromBytes<unknown, string>(await col.toBytes());
  const sHits = await strings.search([0, 1], { k: 1 });
  assertType<Equal<(typeof sHits)[number]['id'], string>>();
  // @ts-expect-error an id type must be string | number
  Collection.create<unknown, boolean>({ dim: 2 });
  const db = await openDatabase();
  const named = await db.createCollection<Doc, string>('docs', { dim: 2 });
  const nHits = await named.search([0, 1], { k: 1 });
  assertType<Equal<(typeof nHits)[number]['id'], string>>();
}

export async function errors(col: Collection): Promise<HorosvecErrorCode | undefined> {
  try {
    await col.add(1, [0, 1]);
  } catch (e) {
    if (isHorosvecError(e, 'HV_DUPLICATE_ID')) {
      assertType<Equal<typeof e.code, 'HV_DUPLICATE_ID'>>();
      return e.code;
    }
    if (e instanceof HorosvecError) {
      const c: HorosvecErrorCode = e.code;
      const m: string = e.message;
      void m;
      return c;
    }
    if (isHorosvecError(e)) return e.code;
    // @ts-expect-error not a code horosvec raises
    isHorosvecError(e, 'HV_NOPE');
    // @ts-expect-error horosvec makes its own errors
    new HorosvecError();
  }
  return undefined;
}
