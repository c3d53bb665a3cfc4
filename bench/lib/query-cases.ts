// The queries of the query benchmark (bench/queries.ts): each as GROQ, and as the SQL a developer
// would write by hand for the same question on each engine, given the indexes that question needs
// (HAND_INDEXES: expression indexes on the JSON fields it filters or orders by, and the reference
// table the document index keeps). Hand-written SQL returns the same rows, shaped by the database.

export interface HandSql {
  sql: string;
  params: unknown[];
}

export interface QueryCase {
  name: string;
  groq: string;
  /** True for queries that read every post (the "scans" among the bars). */
  scan?: boolean;
  sqlite: HandSql;
  postgres: HandSql;
}

/** Indexes the hand-written SQL relies on, created in the benchmark's database only. */
export const HAND_INDEXES = {
  sqlite: [
    "CREATE INDEX IF NOT EXISTS hand_slug ON documents(project_id, dataset, json_extract(content, '$.slug.current'))",
    "CREATE INDEX IF NOT EXISTS hand_published ON documents(project_id, dataset, type, json_extract(content, '$.publishedAt'))",
    "CREATE INDEX IF NOT EXISTS hand_views ON documents(project_id, dataset, type, json_extract(content, '$.views'))",
  ],
  postgres: [
    "CREATE INDEX IF NOT EXISTS hand_slug ON documents(project_id, dataset, (content->'slug'->>'current'))",
    "CREATE INDEX IF NOT EXISTS hand_published ON documents(project_id, dataset, type, (content->>'publishedAt'))",
    "CREATE INDEX IF NOT EXISTS hand_views ON documents(project_id, dataset, type, ((content->>'views')::float8))",
  ],
};

export function queryCases(projectId: string, dataset: string, ids: { post: string; slug: string; author: string }): QueryCase[] {
  const p = [projectId, dataset];
  return [
    {
      name: 'lookup by _id',
      groq: `*[_id == "${ids.post}"][0]`,
      sqlite: { sql: 'SELECT content FROM documents WHERE project_id = ? AND dataset = ? AND id = ?', params: [...p, ids.post] },
      postgres: { sql: 'SELECT content FROM documents WHERE project_id = $1 AND dataset = $2 AND id = $3', params: [...p, ids.post] },
    },
    {
      name: 'lookup by slug',
      groq: `*[_type == "post" && slug.current == "${ids.slug}"][0]{_id, "title": title.en}`,
      sqlite: {
        // Without statistics (no ANALYZE) SQLite would walk the type's index instead: 780 ms, not 0.02.
        sql: "SELECT id, json_extract(content, '$.title.en') AS title FROM documents INDEXED BY hand_slug WHERE project_id = ? AND dataset = ? AND json_extract(content, '$.slug.current') = ? AND type = 'post' LIMIT 1",
        params: [...p, ids.slug],
      },
      postgres: {
        sql: "SELECT id, content->'title'->>'en' AS title FROM documents WHERE project_id = $1 AND dataset = $2 AND content->'slug'->>'current' = $3 AND type = 'post' LIMIT 1",
        params: [...p, ids.slug],
      },
    },
    {
      name: 'type + order + slice, dereferenced',
      groq: '*[_type == "post" && !(_id in path("drafts.**"))] | order(publishedAt desc)[0...20]{_id, "title": title.en, "author": author->name, "categories": categories[]->title.en}',
      sqlite: {
        sql: `SELECT d.id, json_extract(d.content, '$.title.en') AS title, json_extract(a.content, '$.name') AS author,
                (SELECT json_group_array(json_extract(c.content, '$.title.en')) FROM json_each(d.content, '$.categories') r
                  LEFT JOIN documents c ON c.project_id = d.project_id AND c.dataset = d.dataset AND c.id = json_extract(r.value, '$._ref')) AS categories
              FROM (SELECT * FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post' AND id NOT LIKE 'drafts.%'
                    ORDER BY json_extract(content, '$.publishedAt') DESC LIMIT 20) d
              LEFT JOIN documents a ON a.project_id = d.project_id AND a.dataset = d.dataset AND a.id = json_extract(d.content, '$.author._ref')`,
        params: p,
      },
      postgres: {
        sql: `SELECT d.id, d.content->'title'->>'en' AS title, a.content->>'name' AS author,
                (SELECT json_agg(c.content->'title'->>'en') FROM jsonb_array_elements(d.content->'categories') r
                  LEFT JOIN documents c ON c.project_id = d.project_id AND c.dataset = d.dataset AND c.id = r->>'_ref') AS categories
              FROM (SELECT * FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post' AND id NOT LIKE 'drafts.%'
                    ORDER BY content->>'publishedAt' DESC LIMIT 20) d
              LEFT JOIN documents a ON a.project_id = d.project_id AND a.dataset = d.dataset AND a.id = d.content->'author'->>'_ref'`,
        params: p,
      },
    },
    {
      name: 'count by type',
      groq: 'count(*[_type == "post"])',
      sqlite: { sql: "SELECT COUNT(*) AS n FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post'", params: p },
      postgres: { sql: "SELECT COUNT(*) AS n FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post'", params: p },
    },
    {
      name: 'references()',
      groq: `*[references("${ids.author}")]{_id, "title": title.en}`,
      sqlite: {
        // Ordered by the references' key (the same ids): ORDER BY d.id made SQLite walk every document in id order (60 ms).
        sql: "SELECT d.id, json_extract(d.content, '$.title.en') AS title FROM document_references r JOIN documents d ON d.project_id = r.project_id AND d.dataset = r.dataset AND d.id = r.id WHERE r.project_id = ? AND r.dataset = ? AND r.target_id = ? ORDER BY r.id",
        params: [...p, ids.author],
      },
      postgres: {
        sql: "SELECT d.id, d.content->'title'->>'en' AS title FROM document_references r JOIN documents d ON d.project_id = r.project_id AND d.dataset = r.dataset AND d.id = r.id WHERE r.project_id = $1 AND r.dataset = $2 AND r.target_id = $3 ORDER BY d.id",
        params: [...p, ids.author],
      },
    },
    {
      name: 'numeric range',
      groq: '*[_type == "post" && views >= 99900]{_id, views}',
      sqlite: {
        sql: "SELECT id, json_extract(content, '$.views') AS views FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post' AND json_extract(content, '$.views') >= 99900 ORDER BY id",
        params: p,
      },
      postgres: {
        sql: "SELECT id, (content->>'views')::float8 AS views FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post' AND (content->>'views')::float8 >= 99900 ORDER BY id",
        params: p,
      },
    },
    {
      name: 'subquery per author',
      groq: '*[_type == "author"]{name, "posts": *[references(^._id)][0...3]{"title": title.en}}',
      sqlite: {
        sql: `SELECT json_extract(a.content, '$.name') AS name,
                (SELECT json_group_array(json_object('title', t)) FROM (SELECT json_extract(d.content, '$.title.en') AS t FROM document_references r
                  JOIN documents d ON d.project_id = r.project_id AND d.dataset = r.dataset AND d.id = r.id
                  WHERE r.project_id = a.project_id AND r.dataset = a.dataset AND r.target_id = a.id ORDER BY r.id LIMIT 3)) AS posts
              FROM documents a WHERE a.project_id = ? AND a.dataset = ? AND a.type = 'author' ORDER BY a.id`,
        params: p,
      },
      postgres: {
        sql: `SELECT a.content->>'name' AS name,
                (SELECT json_agg(json_build_object('title', t)) FROM (SELECT d.content->'title'->>'en' AS t FROM document_references r
                  JOIN documents d ON d.project_id = r.project_id AND d.dataset = r.dataset AND d.id = r.id
                  WHERE r.project_id = a.project_id AND r.dataset = a.dataset AND r.target_id = a.id ORDER BY r.id LIMIT 3) x) AS posts
              FROM documents a WHERE a.project_id = $1 AND a.dataset = $2 AND a.type = 'author' ORDER BY a.id`,
        params: p,
      },
    },
    {
      name: 'scan: published ids',
      scan: true,
      groq: '*[_type == "post" && !(_id in path("drafts.**"))]._id',
      sqlite: { sql: "SELECT id FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post' AND id NOT LIKE 'drafts.%' ORDER BY id", params: p },
      postgres: { sql: "SELECT id FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post' AND id NOT LIKE 'drafts.%' ORDER BY id", params: p },
    },
    {
      name: 'scan: sum of views',
      scan: true,
      groq: 'math::sum(*[_type == "post"].views)',
      sqlite: { sql: "SELECT SUM(json_extract(content, '$.views')) AS s FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post'", params: p },
      postgres: { sql: "SELECT SUM((content->>'views')::float8) AS s FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post'", params: p },
    },
    {
      name: 'scan: match on title',
      scan: true,
      groq: '*[_type == "post" && title.en match "coffee"]._id',
      sqlite: {
        sql: "SELECT id FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post' AND (' ' || json_extract(content, '$.title.en') || ' ') LIKE '% coffee %' ORDER BY id",
        params: p,
      },
      postgres: {
        sql: "SELECT id FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post' AND (' ' || (content->'title'->>'en') || ' ') ILIKE '% coffee %' ORDER BY id",
        params: p,
      },
    },
    {
      name: 'scan: distinct authors',
      scan: true,
      groq: 'array::unique(*[_type == "post"].author._ref)',
      sqlite: { sql: "SELECT DISTINCT json_extract(content, '$.author._ref') AS a FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post'", params: p },
      postgres: { sql: "SELECT DISTINCT content->'author'->>'_ref' AS a FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post'", params: p },
    },
    {
      name: 'full scan: text in bodies',
      scan: true,
      groq: 'count(*[_type == "post" && body[0].children[0].text match "coffee"])',
      sqlite: {
        sql: "SELECT COUNT(*) AS n FROM documents WHERE project_id = ? AND dataset = ? AND type = 'post' AND (' ' || json_extract(content, '$.body[0].children[0].text') || ' ') LIKE '% coffee %'",
        params: p,
      },
      postgres: {
        sql: "SELECT COUNT(*) AS n FROM documents WHERE project_id = $1 AND dataset = $2 AND type = 'post' AND (' ' || (content->'body'->0->'children'->0->>'text') || ' ') ILIKE '% coffee %'",
        params: p,
      },
    },
  ];
}
