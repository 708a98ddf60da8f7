/**
 * What W3's database work costs in each form, with nothing else around it: `node bench/w3-sql-forms.ts
 * [--rounds 3] [--answers 500]`. Seeds the standard data set on a new PostgreSQL database, then answers
 * W3's query (ten users, their posts, those posts' comments, the comments' authors) in a loop with `pg`
 * and named statements: as the service does (four statements, the rows built into objects) and as one
 * statement that builds the whole answer as JSON in PostgreSQL (two ways). Prints, per answer, the
 * client's CPU, the PostgreSQL backend's CPU (from /proc) and the wall time. Run it pinned
 * (`taskset -c 1 node bench/w3-sql-forms.ts`); results and discussion in bench/journal/2026-11.md, "Session 24".
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createBenchDatabase, seedStandardData } from './suite/databases.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, answers: { type: 'string', default: '500' } },
});

/** The statements the service runs for W3 (`node bench/sql-per-request.ts` prints them). */
const FOUR = {
  users: 'select * from "users" order by "id" asc limit $1 offset $2',
  posts:
    'select "id", "author_id", "title" from (select row_number() over(partition by "author_id" order by "id" desc) as "rn", "id", "author_id", "title" from "posts" where "author_id" = any($1)) as "ranked" where "rn" > $2 and "rn" <= $3 order by "author_id", "id" desc',
  comments:
    'select "id", "post_id", "author_id", "text" from (select row_number() over(partition by "post_id" order by "id" asc) as "rn", "id", "post_id", "author_id", "text" from "comments" where "post_id" = any($1)) as "ranked" where "rn" > $2 and "rn" <= $3 order by "post_id", "id" asc',
  authors: 'select "id", "name" from "users" where "id" = any($1)',
};

/** The answer built by PostgreSQL, one correlated subquery per level (PostGraphile's shape). */
const JSON_CORRELATED = `select coalesce(json_agg(json_build_object('id', u.id::text, 'name', u.name, 'posts', (
  select coalesce(json_agg(json_build_object('id', p.id::text, 'title', p.title, 'comments', (
    select coalesce(json_agg(json_build_object('id', c.id::text, 'text', c.text, 'author',
      (select json_build_object('id', a.id::text, 'name', a.name) from users a where a.id = c.author_id)) order by c.id), '[]')
    from (select id, text, author_id from comments c where c.post_id = p.id order by c.id limit $2) c
  )) order by p.id desc), '[]') from (select id, title from posts p where p.author_id = u.id order by p.id desc limit $2) p
)) order by u.id), '[]')::text as answer from (select id, name from users order by id limit $1) u`;

/** The same answer set-based: each level windowed once, aggregated per parent, authors by a join. */
const JSON_SET_BASED = `with u as (select id, name from users order by id limit $1),
p as (select id, author_id, title from (select p.id, p.author_id, p.title, row_number() over (partition by p.author_id order by p.id desc) rn from posts p where p.author_id in (select id from u)) x where rn <= $2),
c as (select id, post_id, author_id, text from (select c.id, c.post_id, c.author_id, c.text, row_number() over (partition by c.post_id order by c.id) rn from comments c where c.post_id in (select id from p)) x where rn <= $2),
ca as (select c.post_id, json_agg(json_build_object('id', c.id::text, 'text', c.text, 'author', json_build_object('id', a.id::text, 'name', a.name)) order by c.id) comments from c join users a on a.id = c.author_id group by c.post_id),
pa as (select p.author_id, json_agg(json_build_object('id', p.id::text, 'title', p.title, 'comments', coalesce(ca.comments, '[]')) order by p.id desc) posts from p left join ca on ca.post_id = p.id group by p.author_id)
select coalesce(json_agg(json_build_object('id', u.id::text, 'name', u.name, 'posts', coalesce(pa.posts, '[]')) order by u.id), '[]')::text as answer from u left join pa on pa.author_id = u.id`;

type Row = Record<string, unknown>;

/** Ids as one array-text parameter, as the service sends them (src/core/db/id-list.ts). */
const idList = (ids: unknown[]) => `{${[...new Set(ids)].join(',')}}`;

const database = await createBenchDatabase('postgres');
const client = new pg.Client({ connectionString: database.url });
try {
  seedStandardData(database.url);
  await client.connect();
  const run = async (name: string, text: string, values: unknown[]): Promise<Row[]> =>
    (await client.query<Row>({ name, text, values })).rows;
  const { backend } = (await run('pid', 'select pg_backend_pid() as backend', []))[0] as { backend: number };
  /** The backend's user + system CPU in ms (USER_HZ is 100 on Linux). */
  const backendMs = () => {
    const fields = readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };

  const forms: [string, () => Promise<number>][] = [
    [
      'four statements (the service)',
      async () => {
        const users = await run('u', FOUR.users, [10, 0]);
        const posts = await run('p', FOUR.posts, [idList(users.map((u) => u.id)), 0, 10]);
        const comments = await run('c', FOUR.comments, [idList(posts.map((p) => p.id)), 0, 10]);
        const authors = await run('a', FOUR.authors, [idList(comments.map((c) => c.author_id))]);
        return users.length + posts.length + comments.length + authors.length;
      },
    ],
    [
      'one JSON statement, correlated',
      async () => String((await run('j1', JSON_CORRELATED, [10, 10]))[0]!.answer).length,
    ],
    [
      'one JSON statement, set-based',
      async () => String((await run('j2', JSON_SET_BASED, [10, 10]))[0]!.answer).length,
    ],
  ];
  for (const [name, answer] of forms) console.log(`${name}: ${await answer()} rows or characters per answer`);
  const answers = Number(values.answers);
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [name, answer] of forms) {
      for (let i = 0; i < 50; i++) await answer();
      const cpu = process.cpuUsage();
      const backendBefore = backendMs();
      const started = performance.now();
      for (let i = 0; i < answers; i++) await answer();
      const used = process.cpuUsage(cpu);
      const perAnswer = (us: number) => `${Math.round(us / answers)} µs`;
      console.log(
        `round ${round}, ${name}: client CPU ${perAnswer(used.user + used.system)}, ` +
          `PostgreSQL CPU ${perAnswer((backendMs() - backendBefore) * 1000)}, ` +
          `wall ${perAnswer((performance.now() - started) * 1000)} per answer`,
      );
    }
  }
} finally {
  await client.end();
  await database.drop();
}
