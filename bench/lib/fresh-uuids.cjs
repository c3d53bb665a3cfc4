// Each request's body with every `[<uuid>]` replaced by a new random UUID (a document id a client
// chooses, as Studio does). CommonJS and a file of its own: the load runs in a worker thread,
// which loads it by path, as it cannot be handed a function.
const { randomUUID } = require('node:crypto');

module.exports = (request) => ({ ...request, body: String(request.body).replace(/\[<uuid>\]/g, () => randomUUID()) });
