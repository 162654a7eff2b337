// Renders the API reference with Swagger UI (served by the gateway from its Python package).
window.addEventListener("DOMContentLoaded", function () {
  var target = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: target.dataset.url,
    domNode: target,
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
