// Swagger UI's initializer for /docs/ (src/server/pages/docs.ts). A file, not an inline <script>: the
// Content-Security-Policy has script-src 'self'.
//
// The document names the configured public API root as its server (right for Postman and other
// clients), but a browser may have reached this page under another name (localhost vs 127.0.0.1, a
// proxy), and connect-src 'self' allows only this origin: so the reference talks to the origin it was
// loaded from. validatorUrl: null keeps Swagger UI from loading a badge from validator.swagger.io.
(() => {
  const root = document.getElementById('swagger-ui');
  const here = (path) => new URL(path, window.location.href).href;

  function sameOrigin(spec) {
    spec.servers = [{ url: here(root.dataset.api), description: 'This server' }];
    const token = spec.paths?.['/oauth/token'];
    if (token) token.servers = [{ url: here(root.dataset.token).replace(/\/oauth\/token$/, '') }];
    const flow = spec.components?.securitySchemes?.oauth2?.flows?.clientCredentials;
    if (flow) flow.tokenUrl = here(root.dataset.token);
    return spec;
  }

  function fail(message) {
    const p = document.createElement('p');
    p.className = 'load-error';
    p.textContent = `The API reference could not be loaded: ${message}`;
    root.replaceChildren(p);
  }

  fetch(root.dataset.openapi, { headers: { accept: 'application/json' } })
    .then((res) => {
      if (!res.ok) throw new Error(`${root.dataset.openapi} answered HTTP ${res.status}`);
      return res.json();
    })
    .then((spec) => {
      window.ui = window.SwaggerUIBundle({
        spec: sameOrigin(spec),
        dom_id: '#swagger-ui',
        deepLinking: true,
        validatorUrl: null,
        displayRequestDuration: true,
        defaultModelsExpandDepth: 0,
        docExpansion: 'list',
        tryItOutEnabled: false,
      });
    })
    .catch((err) => fail(err.message));
})();
