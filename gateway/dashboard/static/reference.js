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

// What Swagger UI lists before anything is opened: the document's own fields, the security
// schemes (its Authorize button) and, of each operation, what its collapsed row shows. The
// webhooks, which no one sends from here, are the reference's (/docs) to show.
var LISTED = ["tags", "summary", "operationId", "deprecated", "security"];
var METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

function outline(spec) {
  var kept = {};
  Object.keys(spec).forEach(function (key) {
    if (key !== "paths" && key !== "webhooks" && key !== "components") kept[key] = spec[key];
  });
  kept.components = {securitySchemes: (spec.components || {}).securitySchemes || {}};
  kept.paths = {};
  Object.keys(spec.paths).forEach(function (path) {
    var item = spec.paths[path];
    var listed = (kept.paths[path] = {});
    METHODS.forEach(function (method) {
      if (!item[method]) return;
      listed[method] = {};
      LISTED.forEach(function (key) {
        if (key in item[method]) listed[method][key] = item[method][key];
      });
    });
  });
  return kept;
}

// Swagger UI parses, converts and keeps whichever document it is given, and resolves a subtree
// (an operation as it is opened, the security schemes on every load) by first converting the whole
// document, which for ours took seconds (docs/performance.md). It is given the outline to list,
// and each subtree it resolves is taken from the whole document: the subtree and what its `$ref`s
// reach, a few kilobytes. What it draws of an opened operation is that resolved subtree.
function ResolveFrom(spec) {
  return function () {
    return {
      afterLoad: function (system) {
        var resolveSubtree = system.fn.resolveSubtree;
        system.fn.resolveSubtree = function (listed, path, options) {
          return resolveSubtree(reachableSubtree(spec, path), path, options);
        };
      },
    };
  };
}

window.addEventListener("DOMContentLoaded", function () {
  var target = document.getElementById("swagger-ui");
  fetch(target.dataset.url)
    .then(function (answer) {
      if (!answer.ok) throw new Error("it answered " + answer.status);
      return answer.json();
    })
    .then(function (spec) {
      window.ui = SwaggerUIBundle({
        spec: outline(spec),
        domNode: target,
        deepLinking: true,
        docExpansion: "none",
        tryItOutEnabled: true, // an opened operation is ready to send
        defaultModelsExpandDepth: -1,
        presets: [SwaggerUIBundle.presets.apis],
        plugins: [ResolveFrom(spec)],
        layout: "BaseLayout",
      });
    })
    .catch(function (error) {
      // As the page says without JavaScript: the reference does not need the console.
      var card = document.createElement("p");
      var reference = document.createElement("a");
      card.className = "card";
      reference.href = "/docs";
      reference.textContent = "reference";
      card.append("The console could not load the API's document (" + error.message + "). The ", reference, " does not need it.");
      target.replaceChildren(card);
      target.className = "container";
    });
});
