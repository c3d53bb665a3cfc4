import { defineCliConfig } from 'sanity/cli';

export default defineCliConfig({
  api: {
    projectId: process.env.SANITY_STUDIO_PROJECT_ID || 'blog',
    dataset: process.env.SANITY_STUDIO_DATASET || 'production',
  },
  // The bundle is served as it is built: no modules loaded from Sanity's CDN at run time.
  deployment: { autoUpdates: false },
});
