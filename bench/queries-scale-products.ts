/**
 * The products list's requests of the scale benchmark (bench/queries-scale.ts, `--products N`): the
 * issue's rows (`search=steel`, a deep page and the last page by offset and by cursor) and one request
 * per operator of the list's grammar (docs/QUERYING.md, "Products"). Each is a label and a path.
 */
type Get = (path: string) => Promise<{ pagination?: { nextCursor?: string | null } }>;

export async function productRequests(get: Get, products: number): Promise<[string, string][]> {
  const lastPage = Math.ceil(products / 20);
  const deepPage = Math.floor(lastPage * 0.8);
  const cursorAfter = async (query: string, page: number) => {
    const body = await get(`/api/v2/products?${query}&page=${page}&count=none`);
    return encodeURIComponent(body.pagination!.nextCursor!);
  };
  const deep = await cursorAfter('sort=id', deepPage);
  const nearLast = await cursorAfter('sort=id', lastPage - 1);
  const deepByPrice = await cursorAfter('sort=-price', deepPage);
  const p = '/api/v2/products';
  return [
    ['products: first page, exact total (counters)', `${p}?page=1`],
    [
      'products: category & min_price & max_price, exact total (counters)',
      `${p}?category=category-01&min_price=10&max_price=50`,
    ],
    ['products: search=steel, exact total (rows counted)', `${p}?search=steel`],
    ['products: search=steel, count=estimated', `${p}?search=steel&count=estimated`],
    [`products: page ${deepPage} by offset`, `${p}?page=${deepPage}`],
    [`products: last page (${lastPage}) by offset`, `${p}?page=${lastPage}`],
    [`products: the page after page ${deepPage} by cursor, exact total`, `${p}?sort=id&cursor=${deep}`],
    [`products: the last page by cursor, count=none`, `${p}?sort=id&count=none&cursor=${nearLast}`],
    [`products: sort=-price, after page ${deepPage} by cursor`, `${p}?sort=-price&count=none&cursor=${deepByPrice}`],
    ['products: price[gte]=500, exact total (counters)', `${p}?price[gte]=500`],
    ['products: price[ne]=10, count=estimated', `${p}?price[ne]=10&count=estimated`],
    ['products: price[in]=9.99,19.99, count=estimated', `${p}?price[in]=9.99,19.99&count=estimated`],
    ['products: stock=0, count=estimated', `${p}?stock=0&count=estimated`],
    ['products: stock[lt]=5&sort=-price, count=none', `${p}?stock[lt]=5&sort=-price&count=none`],
    [
      'products: name[contains]=steel&sort=name, count=estimated',
      `${p}?name[contains]=steel&sort=name&count=estimated`,
    ],
    ['products: name[gte]=M, count=estimated', `${p}?name[gte]=M&count=estimated`],
    [
      'products: category[in]=category-01,category-02, count=estimated',
      `${p}?category[in]=category-01,category-02&count=estimated`,
    ],
    ['products: category[ne]=category-01, count=estimated', `${p}?category[ne]=category-01&count=estimated`],
    [
      'products: createdAt[gte]=2026-01-01T00:00:00Z, count=estimated',
      `${p}?createdAt[gte]=2026-01-01T00:00:00Z&count=estimated`,
    ],
  ];
}
