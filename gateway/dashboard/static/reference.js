// Renders the API console with Swagger UI (served by the gateway from its Python package).

// The part of the document one subtree needs: the document's own fields, the subtree, and
// everything its local `$ref`s reach.
function reachableSubtree(spec, path) {
  var kept = {};
  var seen = {};
  ["openapi", "info", "jsonSchemaDialect", "servers", "security"].forEach(function (key) {
    if (key in spec) kept[key] = spec[key];
  });

  function place(keys, value) {
    var target = kept;
    keys.slice(0, -1).forEach(function (key) {
      target = target[key] = target[key] || {};
    });
    target[keys[keys.length - 1]] = value;
  }

  function keep(keys) {
    var value = keys.reduce(function (node, key) {
      return node == null ? undefined : node[key];
    }, spec);
    if (value === undefined) return;
    place(keys, value);
    walk(value);
  }

  function walk(node) {
    if (node === null || typeof node !== "object") return;
    if (typeof node.$ref === "string" && node.$ref.indexOf("#/") === 0 && !seen[node.$ref]) {
      seen[node.$ref] = true;
      keep(node.$ref.slice(2).split("/").map(function (key) {
        return decodeURIComponent(key).replace(/~1/g, "/").replace(/~0/g, "~");
      }));
    }
    Object.keys(node).forEach(function (key) {
      walk(node[key]);
    });
  }

  // An operation with its path item: the item's parameters are the operation's too.
  keep(path[0] === "paths" || path[0] === "webhooks" ? path.slice(0, 2) : path);
  return kept;
}

// Swagger UI resolves a subtree of an OpenAPI 3.1 document (an operation as it is opened, the
// security schemes on every load) by first converting the whole document, which for ours took
// seconds each time (docs/performance.md); given only what the subtree reaches, it does the same
// work on a few kilobytes.
function ResolveReachableOnly() {
  return {
    afterLoad: function (system) {
      var resolveSubtree = system.fn.resolveSubtree;
      system.fn.resolveSubtree = function (spec, path, options) {
        return resolveSubtree(reachableSubtree(spec, path), path, options);
      };
    },
  };
}

window.addEventListener("DOMContentLoaded", function () {
  var target = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: target.dataset.url,
    domNode: target,
    deepLinking: true,
    docExpansion: "none",
    defaultModelsExpandDepth: -1,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [ResolveReachableOnly],
    layout: "BaseLayout",
  });
});
