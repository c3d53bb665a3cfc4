import type { Migration } from './index.ts';

// Each document, and each revision's copy of one, also holds what its content takes once parsed
// (`heap_bytes`: 64 bytes for each object or array, 8 for each value, a string's characters and 16
// more; json/json-weight.ts), written with the content. Pages and steps of documents that are
// parsed are cut by the larger of it and the text's length: 600 KB of `[{},{},…]` take 14 MB
// once parsed, and a page cut at 8 MB of text held hundreds of MB. Rows written before this
// migration have none (NULL), and count by their text.
// SQLite appends the column after the content, which it then reaches through the content's
// overflow pages: only reads that parse the content (or are rare: history, an index rebuild) ask.
const sql = () => `ALTER TABLE documents ADD COLUMN heap_bytes INTEGER;
ALTER TABLE revisions ADD COLUMN heap_bytes INTEGER;`;

export const heapBytes: Migration = { version: 17, name: 'heap-bytes', sql };
