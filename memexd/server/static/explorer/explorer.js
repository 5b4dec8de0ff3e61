// memexd explorer: search the memory, see it as a graph, read an item.
// Talks to memexd's GraphQL endpoint with the key the person enters (kept in
// this tab's session storage). No framework: the DOM, fetch and Cytoscape.js.
"use strict";

(function () {
  var endpoint = document.body.dataset.endpoint || "/graphql";
  var RESULT_LIMIT = 200;
  var ITEM_FIELDS = "id scope kind author authority conviction importance createdAt retracted parents";

  var SEARCH = "query Search($f: MemoryFilter, $limit: Int, $retracted: Boolean!) {" +
    " items(filter: $f, limit: $limit, includeRetracted: $retracted," +
    " sort: [{field: RECENCY, order: DESC}]) { " + ITEM_FIELDS + " } }";
  var DETAIL = "query Detail($id: ID!) {" +
    " item(id: $id, includeRetracted: true) { " + ITEM_FIELDS + " content meta sourceKind }" +
    " events(filter: {itemIds: [$id]}) { id type ts author reason } }";
  var NEIGHBOURS = "query Neighbours($id: ID!) {" +
    " item(id: $id, includeRetracted: true) { id" +
    " parentItems { " + ITEM_FIELDS + " } children { " + ITEM_FIELDS + " } } }";

  function $(id) { return document.getElementById(id); }

  function status(text, isError) {
    var el = $("status");
    el.textContent = text;
    el.className = isError ? "error" : "";
  }

  // ---------------------------------------------------------------- GraphQL

  function gql(query, variables) {
    var headers = { "content-type": "application/json" };
    var key = sessionStorage.getItem("memexd.key");
    if (key) headers.authorization = "Bearer " + key;
    return fetch(endpoint, {
      method: "POST",
      headers: headers,
      body: JSON.stringify({ query: query, variables: variables || {} }),
    }).then(function (response) {
      return response.json().then(function (body) {
        if (body.errors && body.errors.length) {
          var first = body.errors[0];
          var code = first.extensions && first.extensions.code;
          throw new Error((code ? code + ": " : "") + first.message);
        }
        if (!response.ok) throw new Error("HTTP " + response.status);
        return body.data;
      });
    });
  }

  // ---------------------------------------------------------------- graph

  var cy = cytoscape({
    container: $("graph"),
    wheelSensitivity: 0.3,
    maxZoom: 2.5,
    style: [
      { selector: "node", style: {
        "label": "data(label)", "font-size": 10, "text-wrap": "ellipsis",
        "text-max-width": 120, "background-color": "#2b6cb0", "color": "#1a202c",
        "text-valign": "bottom", "text-margin-y": 4 } },
      { selector: "node.retracted", style: { "background-color": "#a0aec0", "opacity": 0.6 } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#dd6b20" } },
      { selector: "edge", style: {
        "width": 1.5, "line-color": "#718096", "target-arrow-color": "#718096",
        "target-arrow-shape": "triangle", "curve-style": "bezier" } },
    ],
  });

  function label(item) {
    return item.kind + " · " + item.scope;
  }

  function addItem(item) {
    var node = cy.getElementById(item.id);
    if (node.empty()) {
      node = cy.add({ group: "nodes", data: { id: item.id, label: label(item) } });
    }
    node.toggleClass("retracted", !!item.retracted);
    return node;
  }

  // A PARENT link drawn from child to parent, once, when both are shown.
  function addParentLinks(items) {
    items.forEach(function (item) {
      (item.parents || []).forEach(function (parent) {
        var id = item.id + "->" + parent;
        if (!cy.getElementById(parent).empty() && cy.getElementById(id).empty()) {
          cy.add({ group: "edges", data: { id: id, source: item.id, target: parent } });
        }
      });
    });
  }

  function layout() {
    cy.layout({ name: "dagre", rankDir: "BT", nodeSep: 20, rankSep: 50, animate: false }).run();
  }

  cy.on("tap", "node", function (event) { select(event.target.id()); });

  // ---------------------------------------------------------------- search

  function filterOf(form) {
    var f = {};
    ["scopePrefix", "kind", "author"].forEach(function (name) {
      var value = form.elements[name].value.trim();
      if (value) f[name] = value;
    });
    var min = form.elements.authorityMin.value, max = form.elements.authorityMax.value;
    if (min !== "" || max !== "") {
      f.range = { authority: {} };
      if (min !== "") f.range.authority.min = Number(min);
      if (max !== "") f.range.authority.max = Number(max);
    }
    return f;
  }

  function showResults(items) {
    var list = $("results");
    list.textContent = "";
    items.forEach(function (item) {
      var li = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "result" + (item.retracted ? " retracted" : "");
      button.dataset.id = item.id;
      button.textContent = label(item) + " (" + item.authority.toFixed(2) + ")";
      button.addEventListener("click", function () { select(item.id); });
      li.appendChild(button);
      list.appendChild(li);
    });
    cy.elements().remove();
    cy.batch(function () {
      items.forEach(addItem);
      addParentLinks(items);
    });
    layout();
  }

  $("search-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = event.target;
    status("Searching…");
    gql(SEARCH, { f: filterOf(form), limit: RESULT_LIMIT,
                  retracted: form.elements.includeRetracted.checked })
      .then(function (data) {
        showResults(data.items);
        var more = data.items.length === RESULT_LIMIT ? " (the first " + RESULT_LIMIT + ")" : "";
        status(data.items.length + " items" + more);
      })
      .catch(function (error) { status(error.message, true); });
  });

  $("key-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var key = $("api-key").value.trim();
    if (key) sessionStorage.setItem("memexd.key", key);
    else sessionStorage.removeItem("memexd.key");
    $("api-key").value = "";
    status(key ? "Key set for this tab." : "No key: anonymous access.");
  });

  // ---------------------------------------------------------------- item panel

  var selected = null;

  function field(list, name, value) {
    var dt = document.createElement("dt");
    dt.textContent = name;
    var dd = document.createElement("dd");
    dd.textContent = value === null || value === undefined ? "—" : String(value);
    list.appendChild(dt);
    list.appendChild(dd);
  }

  function showItem(item, events) {
    $("item-panel").hidden = false;
    $("item-title").textContent = item.kind + (item.retracted ? " (retracted)" : "");
    var fields = $("item-fields");
    fields.textContent = "";
    field(fields, "id", item.id);
    field(fields, "scope", item.scope);
    field(fields, "author", item.author);
    field(fields, "source", item.sourceKind);
    field(fields, "created", item.createdAt);
    field(fields, "authority", item.authority);
    field(fields, "conviction", item.conviction);
    field(fields, "importance", item.importance);
    field(fields, "parents", (item.parents || []).length);
    $("item-content").textContent = JSON.stringify(item.content, null, 2);
    $("item-meta").textContent = item.meta === null ? "—" : JSON.stringify(item.meta, null, 2);
    var history = $("item-events");
    history.textContent = "";
    events.forEach(function (e) {
      var li = document.createElement("li");
      li.textContent = e.ts + " " + e.type + (e.author ? " by " + e.author : "") +
        (e.reason ? ": " + e.reason : "");
      history.appendChild(li);
    });
  }

  function select(id) {
    selected = id;
    cy.$(":selected").unselect();
    cy.getElementById(id).select();
    gql(DETAIL, { id: id })
      .then(function (data) {
        if (!data.item) { status("That item is gone or not yours to read.", true); return; }
        showItem(data.item, data.events);
      })
      .catch(function (error) { status(error.message, true); });
  }

  $("expand").addEventListener("click", function () {
    if (!selected) return;
    gql(NEIGHBOURS, { id: selected })
      .then(function (data) {
        if (!data.item) return;
        var parents = data.item.parentItems, children = data.item.children;
        var around = parents.concat(children);
        cy.batch(function () {
          around.forEach(addItem);
          addParentLinks(around);
          addParentLinks([{ id: selected, parents: parents.map(function (p) { return p.id; }) }]);
        });
        layout();
        status(around.length + " neighbours shown");
      })
      .catch(function (error) { status(error.message, true); });
  });
})();
