import { createClient } from '@sanity/client';
import { defineConfig, SANITY_VERSION } from 'sanity';
import { structureTool } from 'sanity/structure';
import { schemaTypes } from './schemaTypes';

// Build-time values (`SANITY_STUDIO_*` are inlined into the bundle by `sanity build`).
const projectId = process.env.SANITY_STUDIO_PROJECT_ID || 'blog';
const dataset = process.env.SANITY_STUDIO_DATASET || 'production';
// Served by the service itself, the API is on the page's own origin; set SANITY_STUDIO_API_ORIGIN
// (https://cms.example.com) when the studio is hosted elsewhere. The CLI also evaluates this file
// outside a browser, where there is no window.
const apiOrigin =
  process.env.SANITY_STUDIO_API_ORIGIN || (typeof window === 'undefined' ? 'http://localhost:3000' : window.location.origin);

export default defineConfig({
  name: 'default',
  title: 'Blog',
  projectId,
  dataset,
  // The client builds `${apiHost}/v<apiVersion>/...`; the service answers under /api, and
  // /api/p/<project> names the project in every URL, as Sanity's <project>.api.sanity.io does:
  // Studio's listeners and history requests carry no project header, and every project may have
  // a dataset called production.
  apiHost: `${apiOrigin}/api/p/${projectId}`,
  // Sanity's client would otherwise call https://<projectId>.<apiHost>; the service reads the
  // project from the X-Sanity-Project-ID header instead.
  unstable_clientFactory: (options) => createClient({ ...options, useProjectHostname: false }),
  // The service's own sign-in page returns to the studio with `#token=...`.
  auth: {
    loginMethod: 'token',
    mode: 'replace',
    providers: [{ name: 'local', title: 'Local', url: `${apiOrigin}/login` }],
  },
  // Studio 4 writes through the Actions API unless told not to; told so, it writes through
  // /data/mutate, which keeps that path used (the 4.22.1 journey). From 5.25 on Studio writes only
  // through actions and has no such option.
  ...(SANITY_VERSION.startsWith('4.') ? { __internal_serverDocumentActions: { enabled: false } } : {}),
  // Features that need APIs the service does not have (events, releases, scheduling, tasks).
  beta: { eventsAPI: { documents: false, releases: false } },
  releases: { enabled: false },
  scheduledPublishing: { enabled: false },
  // Scheduled drafts are releases of one document (Studio 5 shows them as a tool of their own).
  scheduledDrafts: { enabled: false },
  tasks: { enabled: false },
  // Comments live in an add-on dataset that Sanity creates for a project; the service has none.
  document: { comments: { enabled: false } },
  // Studio 6 searches with `text::query()` by default, which the service's GROQ does not have yet;
  // Studio 4 and 5 use this strategy by default.
  search: { strategy: 'groqLegacy' },
  plugins: [structureTool()],
  schema: { types: schemaTypes },
});
