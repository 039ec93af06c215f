// Vite config for the studio SPA. Assets live under /studio/ (the API serves the build there and the
// same index.html at /demo); in dev the API routes are proxied to the Nest server.
import { fileURLToPath, URL } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const api = 'http://127.0.0.1:3000';

// The API refuses cross-site Origins on state-changing requests; in dev the page is on another port,
// so present proxied requests as coming from the API's own origin.
const proxied = {
  target: api,
  changeOrigin: true,
  configure: (proxy: {
    on: (
      ev: 'proxyReq',
      fn: (req: { setHeader: (k: string, v: string) => void; getHeader: (k: string) => unknown }) => void,
    ) => void;
  }) => {
    proxy.on('proxyReq', (req) => {
      if (req.getHeader('origin')) req.setHeader('origin', api);
    });
  },
};

/** In dev, serve index.html for /demo too (in production the API does it). */
function demoFallback(): Plugin {
  return {
    name: 'studio-demo-fallback',
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if (req.url === '/demo' || req.url?.startsWith('/demo?') || req.url?.startsWith('/demo/')) {
          req.url = '/studio/';
        }
        next();
      });
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/studio/',
  plugins: [react(), demoFallback()],
  resolve: {
    alias: {
      '@service/workflow-graph': fileURLToPath(new URL('../../libs/workflow-graph/src/index.ts', import.meta.url)),
    },
  },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 900,
  },
  server: {
    port: 4200,
    proxy: {
      '/auth': proxied,
      '/agent': proxied,
      '/studio/api': proxied,
      '/health': proxied,
    },
  },
});
