// memexd explorer: search the memory, see it as a graph, read an item.
// Talks to memexd's GraphQL endpoint with the key the person enters (kept in
// this tab's session storage). No framework: the DOM, fetch and Cytoscape.js.
"use strict";

(function () {
  var endpoint = document.body.dataset.endpoint || "/graphql";
  var RESULT_LIMIT = 200;
  // what the graph and the lists show of an item; the item panel reads the rest
  var ITEM_FIELDS = "id scope kind authority retracted archived parents summary(maxChars: 60)";

  var SEARCH = "query Search($f: MemoryFilter, $limit: Int, $retracted: Boolean!) {" +
    " items(filter: $f, limit: $limit, includeRetracted: $retracted," +
    " sort: [{field: RECENCY, order: DESC}]) { " + ITEM_FIELDS + " } }";
  var WORDS = "query Words($text: String!, $f: MemoryFilter, $limit: Int, $retracted: Boolean!) {" +
    " items: searchItems(text: $text, filter: $f, limit: $limit," +
    " includeRetracted: $retracted) { " + ITEM_FIELDS + " } }";
  // by meaning (and words): the search box's default
  var RECALL = "query Recall($input: RecallInput!) {" +
    " recall(input: $input) { score item { " + ITEM_FIELDS + " } } }";
  var RECALL_LIMIT = 100;
  var DETAIL_FIELDS = ITEM_FIELDS +
    " author conviction importance createdAt content meta sourceKind" +
    " lifecycle priority tags sessionId archived decayScore access { count lastAccessedAt }" +
    " effectiveAuthority trustPath { id summary(maxChars: 40) }";
  var DETAIL_EVENTS = " events(filter: {itemIds: [$id]}) { id type ts author reason traceId } }";
  var DETAIL = "query Detail($id: ID!) {" +
    " item(id: $id, includeRetracted: true) { " + DETAIL_FIELDS + " }" + DETAIL_EVENTS;
  // the memory as it was at an instant (SPEC §14): the item's fields then
  var DETAIL_AS_OF = "query DetailAsOf($id: ID!, $at: DateTime!) {" +
    " item: itemAsOf(id: $id, asOf: $at) { " + DETAIL_FIELDS + " }" + DETAIL_EVENTS;
  var AS_OF = "query AsOf($at: DateTime!, $f: MemoryFilter, $limit: Int) {" +
    " items: itemsAsOf(asOf: $at, filter: $f, limit: $limit) { " + ITEM_FIELDS + " } }";
  var NEIGHBOURS = "query Neighbours($id: ID!) {" +
    " item(id: $id, includeRetracted: true) { id" +
    " parentItems { " + ITEM_FIELDS + " } children { " + ITEM_FIELDS + " } } }";
  // with "retracted too": tombstones among the parents and children, greyed
  var ALL_NEIGHBOURS = "query AllNeighbours($id: ID!, $parents: [ID!]) {" +
    " parents: items(filter: {ids: $parents}, includeRetracted: true) { " + ITEM_FIELDS + " }" +
    " children: items(filter: {hasParent: $id}, includeRetracted: true) { " +
    ITEM_FIELDS + " } }";

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
        "text-valign": "bottom", "text-margin-y": 4, "min-zoomed-font-size": 7 } },
      { selector: "node.retracted", style: { "background-color": "#a0aec0", "opacity": 0.6 } },
      { selector: "node.missing", style: {
        "background-color": "#fff", "border-width": 2, "border-style": "dashed",
        "border-color": "#c53030" } },
      { selector: "node.doomed", style: { "background-color": "#c53030" } },
      { selector: "node.archived", style: {
        "background-color": "#e2e8f0", "border-width": 2, "border-style": "dotted",
        "border-color": "#4a5568" } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#dd6b20" } },
      { selector: "edge", style: {
        "width": 1.5, "line-color": "#718096", "target-arrow-color": "#718096",
        "target-arrow-shape": "triangle", "curve-style": "bezier" } },
      { selector: "edge.typed", style: {
        "line-color": "data(colour)", "target-arrow-color": "data(colour)",
        "label": "data(kind)", "font-size": 8, "line-style": "solid", "width": 2 } },
      { selector: "edge.inactive", style: { "line-style": "dashed", "opacity": 0.6 } },
    ],
  });

  // what a node and a result say: a line of the item's content, or, for
  // content without text, its kind and scope
  function label(item) {
    return item.summary || item.kind + " · " + item.scope;
  }

  function addItem(item) {
    var node = cy.getElementById(item.id);
    if (node.empty()) {
      node = cy.add({ group: "nodes", data: { id: item.id, label: label(item) } });
    } else if (item.summary) {
      node.data("label", label(item));  // drawn from the feed before its summary was read
    }
    if (item.parents) node.data("parents", item.parents);  // for expanding it later
    node.toggleClass("retracted", !!item.retracted);
    if (item.archived !== undefined) node.toggleClass("archived", !!item.archived);
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

  // Layered (dagre) while the graph is small enough to read as layers; past
  // that, rings by degree: dagre took 19 s to order a 2,000-child star.
  var LAYERED_MAX = 300;

  function layout() {
    var options = cy.nodes().length <= LAYERED_MAX
      ? { name: "dagre", rankDir: "BT", nodeSep: 20, rankSep: 50, animate: false,
          nodeDimensionsIncludeLabels: true }  // labels take room: none overlap
      : { name: "concentric", animate: false, minNodeSpacing: 4, avoidOverlap: true,
          nodeDimensionsIncludeLabels: true,
          concentric: function (node) { return node.degree(); },
          levelWidth: function () { return 1; } };
    cy.layout(options).run();
    listShown();
  }

  // Every node in the graph as a button too, so the keyboard reaches what the
  // pointer does (the canvas is not focusable); the first LISTED of them.
  var LISTED = 300;

  // A list entry that selects an item: the keyboard's way to every item shown.
  function itemButton(id, text, retracted) {
    var li = document.createElement("li");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "result" + (retracted ? " retracted" : "");
    button.dataset.id = id;
    button.textContent = text;
    button.addEventListener("click", function () { select(id); });
    li.appendChild(button);
    return li;
  }

  function listShown() {
    var list = $("shown");
    list.textContent = "";
    cy.nodes().slice(0, LISTED).forEach(function (node) {
      if (!node.hasClass("missing")) {
        list.appendChild(itemButton(node.id(), node.data("label"), node.hasClass("retracted")));
      }
    });
    var more = cy.nodes().length - LISTED;
    $("shown-more").textContent = more > 0 ? "and " + more + " more in the graph" : "";
  }

  cy.on("tap", "node", function (event) { select(event.target.id()); });
  // a double click opens the node up: its parents, children and typed edges join the graph
  cy.on("dbltap", "node", function (event) {
    select(event.target.id());
    $("expand").click();
    $("typed-edges").click();
  });
  // the graph, for the browser tests and for anyone poking at it in devtools
  window.memexdExplorer = { cy: cy };

  // ---------------------------------------------------------------- search

  function filterOf(form) {
    var f = {};
    ["scopePrefix", "kind", "author"].forEach(function (name) {
      var value = form.elements[name].value.trim();
      if (value) f[name] = value;
    });
    if (form.elements.includeArchived.checked) f.includeArchived = true;
    ["authority", "conviction", "importance"].forEach(function (score) {
      var min = form.elements[score + "Min"].value, max = form.elements[score + "Max"].value;
      if (min === "" && max === "") return;
      f.range = f.range || {};
      f.range[score] = {};
      if (min !== "") f.range[score].min = Number(min);
      if (max !== "") f.range[score].max = Number(max);
    });
    return f;
  }

  // scores: recall's fused score per item id (none: authority is shown)
  function showResults(items, scores) {
    var list = $("results");
    list.textContent = "";
    items.forEach(function (item) {
      var score = scores ? scores[item.id] : item.authority;
      var text = label(item) + " — " + item.kind + " · " + item.scope +
        " (" + score.toFixed(2) + ")";
      list.appendChild(itemButton(item.id, text, item.retracted));
    });
    cy.elements().remove();
    cy.batch(function () {
      items.forEach(addItem);
      addParentLinks(items);
    });
    layout();
  }

  // ---------------------------------------------------------------- time

  var logStart = null;  // the log's first event (ms): the slider's left end

  // the chosen instant as ISO text, or null for now
  function asOf() {
    var value = $("f-as-of").value;
    return value ? new Date(value).toISOString() : null;
  }

  // a datetime-local value (local time, to the millisecond) for epoch ms
  function localValue(ms) {
    var d = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
    return d.toISOString().slice(0, 23);
  }

  $("as-of-slider").addEventListener("input", function (event) {
    var slider = event.target;
    var start = logStart === null
      ? gql("{ events(limit: 1) { ts } }").then(function (data) {
          logStart = data.events.length ? Date.parse(data.events[0].ts) : Date.now();
          return logStart;
        })
      : Promise.resolve(logStart);
    start.then(function (first) {
      var now = Date.now(), v = Number(slider.value);
      $("f-as-of").value = v >= Number(slider.max) ? ""
        : localValue(first + Math.round((now - first) * v / Number(slider.max)));
    }).catch(function (error) { status(error.message, true); });
  });

  $("as-of-now").addEventListener("click", function () {
    $("f-as-of").value = "";
    $("as-of-slider").value = $("as-of-slider").max;
  });

  $("search-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = event.target;
    status("Searching…");
    var at = asOf();
    if (at) { searchAsOf(form, at); return; }
    var text = form.elements.text.value.trim();
    var retracted = form.elements.includeRetracted.checked;
    var byMeaning = text && !form.elements.wordsOnly.checked;
    // by effective authority instead of the items' own (SPEC §14): recall only
    var trusted = byMeaning && form.elements.trust.checked;
    var asked = byMeaning
      ? gql(RECALL, { input: { cue: text, filter: filterOf(form), limit: RECALL_LIMIT,
                               trust: trusted } })
          .then(function (data) {
            var scores = {};
            data.recall.forEach(function (hit) { scores[hit.item.id] = hit.score; });
            return { items: data.recall.map(function (hit) { return hit.item; }),
                     scores: scores, limit: RECALL_LIMIT };
          })
      : gql(text ? WORDS : SEARCH, { f: filterOf(form), limit: RESULT_LIMIT, retracted: retracted,
                                     text: text || undefined })
          .then(function (data) { return { items: data.items, limit: RESULT_LIMIT }; });
    asked
      .then(function (found) {
        showResults(found.items, found.scores);
        var n = found.items.length;
        // recall answers no hit when nothing held is about the cue (its floor)
        if (byMeaning && n === 0) { status("Nothing relevant: no memory is about this"); return; }
        var more = n === found.limit ? " (the first " + found.limit + ")" : "";
        var live = byMeaning && retracted ? "; recall finds live items only" : "";
        status(n + (n === 1 ? " item" : " items") + more + (byMeaning ? " by meaning" : "") +
          (trusted ? ", weighed by trust" : "") + live);
      })
      .catch(function (error) { status(error.message, true); });
  });

  // the graph as it was at an instant: the filters, as the items were then
  function searchAsOf(form, at) {
    var words = form.elements.text.value.trim() ? "; the text box is not used as of an instant" : "";
    gql(AS_OF, { at: at, f: filterOf(form), limit: RESULT_LIMIT })
      .then(function (data) {
        showResults(data.items);
        var n = data.items.length;
        status(n + (n === 1 ? " item" : " items") + " as of " + at + words);
      })
      .catch(function (error) { status(error.message, true); });
  }

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

  function showItem(item, events, at) {
    $("item-panel").hidden = false;
    $("item-title").textContent = item.kind + (item.retracted ? " (retracted)" : "") +
      (at ? " as of " + at : "");
    var fields = $("item-fields");
    fields.textContent = "";
    field(fields, "id", item.id);
    field(fields, "scope", item.scope);
    field(fields, "author", item.author);
    field(fields, "source", item.sourceKind);
    field(fields, "created", item.createdAt);
    field(fields, "authority", item.authority);
    // how far to trust it: the weakest link of its best support path (SPEC §14)
    // as of an instant the fields are those of then; trust is read as it is now
    var now = at ? " (now)" : "";
    field(fields, "effective authority" + now, item.effectiveAuthority.toFixed(2));
    field(fields, "trust path" + now, item.trustPath.map(function (p) {
      return p.summary || p.id.slice(0, 8);
    }).join(" → "));
    field(fields, "conviction", item.conviction);
    field(fields, "importance", item.importance);
    field(fields, "parents", (item.parents || []).length);
    field(fields, "lifecycle", item.lifecycle + (item.archived ? " (archived)" : ""));
    field(fields, "priority", item.priority);
    field(fields, "tags", item.tags.length ? item.tags.join(", ") : null);
    field(fields, "session", item.sessionId);
    field(fields, "decay score", item.decayScore.toFixed(3));
    field(fields, "accessed", item.access.count + (item.access.lastAccessedAt ?
      " (last " + item.access.lastAccessedAt + ")" : ""));
    if (item.lifecycle === "SESSION" && item.sessionId) showWorkingMemory(fields, item);
    // PROJECT items are never archived (README, "Lifecycle")
    $("archive").hidden = item.archived || item.lifecycle === "PROJECT" || item.retracted;
    $("unarchive").hidden = !item.archived;
    $("promote-form").hidden = item.archived || item.retracted;
    $("item-content").textContent = JSON.stringify(item.content, null, 2);
    $("item-meta").textContent = item.meta === null ? "—" : JSON.stringify(item.meta, null, 2);
    // the command that made it, when it can be named: its whole ingest can be taken back
    var made = events.filter(function (e) { return e.type === "memory.created" && e.traceId; });
    $("undo-ingest").hidden = !made.length || item.retracted || Boolean(at);
    $("undo-ingest").dataset.trace = made.length ? made[0].traceId : "";
    var history = $("item-events");
    history.textContent = "";
    events.forEach(function (e) {
      var li = document.createElement("li");
      li.textContent = e.ts + " " + e.type + (e.author ? " by " + e.author : "") +
        (e.reason ? ": " + e.reason : "");
      history.appendChild(li);
    });
  }

  // a SESSION item's place in its session's working memory: how full it is
  var WORKING = "query Working($scope: String!, $session: String!) {" +
    " workingMemory(scope: $scope, sessionId: $session) { capacity items { id } } }";

  function showWorkingMemory(fields, item) {
    gql(WORKING, { scope: item.scope, session: item.sessionId })
      .then(function (data) {
        if (selected !== item.id) return;  // another item was chosen meanwhile
        var w = data.workingMemory, held = w.items.length;
        field(fields, "working memory", w.capacity === null ? held + " held, no bound"
          : held + " of " + w.capacity + " held");
      })
      .catch(function (error) { status(error.message, true); });
  }

  function select(id) {
    selected = id;
    cy.$(":selected").unselect();
    cy.getElementById(id).select();
    var at = asOf();
    gql(at ? DETAIL_AS_OF : DETAIL, { id: id, at: at || undefined })
      .then(function (data) {
        if (!data.item) {
          status(at ? "That item was not there then (or is not yours to read)."
            : "That item is gone or not yours to read.", true);
          return;
        }
        showItem(data.item, data.events, at);
      })
      .catch(function (error) { status(error.message, true); });
  }

  $("expand").addEventListener("click", function () {
    if (!selected) return;
    var withRetracted = $("f-retracted").checked;
    var listed = cy.getElementById(selected).data("parents") || [];
    var loading = withRetracted
      ? gql(ALL_NEIGHBOURS, { id: selected, parents: listed }).then(function (n) {
          return { item: { parentItems: n.parents, children: n.children } };
        })
      : gql(NEIGHBOURS, { id: selected });
    loading
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
  // ---------------------------------------------------------------- typed edges

  var PALETTE = ["#d69e2e", "#38a169", "#805ad5", "#dd6b20", "#319795", "#d53f8c", "#3182ce"];
  var kindColours = {};

  function colourOf(kind) {
    if (!(kind in kindColours)) {
      kindColours[kind] = PALETTE[Object.keys(kindColours).length % PALETTE.length];
      var li = document.createElement("li");
      var swatch = document.createElement("span");
      swatch.className = "swatch kind";
      swatch.style.background = kindColours[kind];
      li.appendChild(swatch);
      li.appendChild(document.createTextNode(kind));
      li.dataset.kind = kind;
      $("legend").appendChild(li);
    }
    return kindColours[kind];
  }

  var EDGES = "query Edges($id: ID!) { item(id: $id, includeRetracted: true) {" +
    " edges(direction: BOTH, activeOnly: false) { edgeId from to kind active" +
    " fromItem { " + ITEM_FIELDS + " } toItem { " + ITEM_FIELDS + " } } } }";

  $("typed-edges").addEventListener("click", function () {
    if (!selected) return;
    gql(EDGES, { id: selected })
      .then(function (data) {
        var edges = data.item ? data.item.edges : [];
        cy.batch(function () {
          edges.forEach(function (e) {
            [e.fromItem, e.toItem].forEach(function (i) { if (i) addItem(i); });
            if (!e.fromItem || !e.toItem || !cy.getElementById(e.edgeId).empty()) return;
            cy.add({ group: "edges", classes: "typed" + (e.active ? "" : " inactive"),
                     data: { id: e.edgeId, source: e.from, target: e.to, kind: e.kind,
                             colour: colourOf(e.kind) } });
          });
        });
        layout();
        status(edges.length + " typed edges");
      })
      .catch(function (error) { status(error.message, true); });
  });

  // ---------------------------------------------------------------- provenance

  var TREE = "query Tree($id: ID!) { supportTree(id: $id) { root truncated" +
    " nodes { depth item { " + ITEM_FIELDS + " } } links { child parent } } }";
  var GONE = "query Gone($ids: [ID!]) {" +
    " items(filter: {ids: $ids}, includeRetracted: true) { " + ITEM_FIELDS + " } }";

  $("provenance").addEventListener("click", function () {
    if (selected) showProvenance(selected);
  });

  function showProvenance(root) {
    var tree;
    gql(TREE, { id: root })
      .then(function (data) {
        tree = data.supportTree;
        if (!tree) throw new Error("That item is gone or not yours to read.");
        var shown = {};
        tree.nodes.forEach(function (n) { shown[n.item.id] = true; });
        var absent = [];
        tree.nodes.forEach(function (n) {
          (n.item.parents || []).forEach(function (p) {
            if (!shown[p] && absent.indexOf(p) < 0) absent.push(p);
          });
        });
        return absent.length ? gql(GONE, { ids: absent }).then(function (d) {
          return { absent: absent, found: d.items };
        }) : { absent: [], found: [] };
      })
      .then(function (gone) {
        cy.elements().remove();
        var items = tree.nodes.map(function (n) { return n.item; });
        var found = {};
        gone.found.forEach(function (i) { found[i.id] = i; });
        cy.batch(function () {
          items.forEach(addItem);
          gone.absent.forEach(function (id) {
            if (found[id]) addItem(found[id]);  // retracted: greyed
            else cy.add({ group: "nodes", classes: "missing",
                          data: { id: id, label: "missing " + id.slice(0, 8) } });
          });
          addParentLinks(items);
        });
        layout();
        cy.getElementById(root).select();
        var missing = gone.absent.length - gone.found.length;
        status("Support of the item: " + items.length + " items, " +
               gone.found.length + " retracted and " + missing + " missing parents" +
               (tree.truncated ? " (cut short)" : ""));
      })
      .catch(function (error) { status(error.message, true); });
  }

  // ---------------------------------------------------------------- confirmation

  var pending = null;

  function ask(text, action) {
    pending = action;
    $("confirm-text").textContent = text;
    $("confirm").hidden = false;
    $("confirm-no").focus();
  }

  function settle() {
    $("confirm").hidden = true;
    pending = null;
  }

  $("confirm-no").addEventListener("click", function () {
    cy.nodes(".doomed").removeClass("doomed");
    settle();
    status("Cancelled.");
  });

  $("confirm-yes").addEventListener("click", function () {
    var action = pending;
    settle();
    if (action) action();
  });

  function actor() {
    return $("actor").value.trim() || "user:explorer";
  }

  // ---------------------------------------------------------------- undo

  var UNDO = "mutation Undo($t: ID!, $author: String!, $dry: Boolean) {" +
    " undoTrace(traceId: $t, author: $author, dryRun: $dry) {" +
    " retractedItemIds restoredItemIds retractedEdgeIds conflicts } }";

  // the selected item's ingest (its creation's trace), previewed, then taken back
  $("undo-ingest").addEventListener("click", function () {
    var trace = $("undo-ingest").dataset.trace;
    gql(UNDO, { t: trace, author: actor(), dry: true })
      .then(function (data) {
        var plan = data.undoTrace;
        if (plan.conflicts.length) {
          status("The ingest cannot be undone: " + plan.conflicts.join("; "), true);
          return;
        }
        cy.batch(function () {
          plan.retractedItemIds.forEach(function (i) { cy.getElementById(i).addClass("doomed"); });
        });
        ask("Undo the ingest " + trace + ": retract " + plan.retractedItemIds.length +
          " items, restore " + plan.restoredItemIds.length + ", retract " +
          plan.retractedEdgeIds.length + " edges?", function () {
          gql(UNDO, { t: trace, author: actor(), dry: false })
            .then(function (d) {
              var gone = d.undoTrace.retractedItemIds;
              cy.batch(function () {
                gone.forEach(function (i) {
                  cy.getElementById(i).removeClass("doomed").addClass("retracted");
                });
              });
              status("Undone: " + gone.length + " items retracted, " +
                d.undoTrace.restoredItemIds.length + " restored.");
              if (selected) select(selected);
            })
            .catch(function (error) { status(error.message, true); });
        });
      })
      .catch(function (error) { status(error.message, true); });
  });

  // ---------------------------------------------------------------- cascade

  var DEPENDENTS = "query Dependents($id: ID!) { dependents(id: $id, transitive: true) { " +
    ITEM_FIELDS + " } }";
  var CASCADE = "mutation Cascade($id: ID!, $author: String!) {" +
    " cascadeRetract(id: $id, author: $author) { retracted } }";

  $("cascade-preview").addEventListener("click", function () {
    if (!selected) return;
    var root = selected;
    gql(DEPENDENTS, { id: root })
      .then(function (data) {
        var doomed = data.dependents;
        cy.batch(function () {
          doomed.forEach(addItem);
          addParentLinks(doomed);
          cy.getElementById(root).addClass("doomed");
          doomed.forEach(function (i) { cy.getElementById(i.id).addClass("doomed"); });
        });
        layout();
        ask("Retracting this item retracts " + doomed.length + " dependents with it (" +
            (doomed.length + 1) + " items in all).", function () {
          gql(CASCADE, { id: root, author: actor() })
            .then(function (d) {
              var gone = d.cascadeRetract.retracted;
              gone.forEach(function (id) {
                cy.getElementById(id).removeClass("doomed").addClass("retracted");
              });
              status("Retracted " + gone.length + " items.");
              select(root);
            })
            .catch(function (error) { status(error.message, true); });
        });
        status(doomed.length + " dependents would fall");
      })
      .catch(function (error) { status(error.message, true); });
  });

  // ---------------------------------------------------------------- archival

  // one item: archiveByDecay on it alone, at the highest threshold (no score
  // reaches 10), so any non-PROJECT item goes
  var ARCHIVE = "mutation Archive($id: ID!, $author: String!) { archiveByDecay(input:" +
    " {filter: {ids: [$id]}, threshold: 10, author: $author}) { archivedIds } }";
  var UNARCHIVE = "mutation Unarchive($id: ID!, $author: String!) {" +
    " unarchiveItems(ids: [$id], author: $author) { id } }";

  $("archive").addEventListener("click", function () {
    if (!selected) return;
    var id = selected;
    gql(ARCHIVE, { id: id, author: actor() })
      .then(function (data) {
        var done = data.archiveByDecay.archivedIds.length;
        status(done ? "Archived: searches leave it out now." : "Nothing to archive.");
        cy.getElementById(id).addClass("archived");
        select(id);
      })
      .catch(function (error) { status(error.message, true); });
  });

  $("unarchive").addEventListener("click", function () {
    if (!selected) return;
    var id = selected;
    gql(UNARCHIVE, { id: id, author: actor() })
      .then(function () {
        status("Unarchived.");
        cy.getElementById(id).removeClass("archived");
        select(id);
      })
      .catch(function (error) { status(error.message, true); });
  });

  // ---------------------------------------------------------------- promotion

  // a new PROJECT item from the selected one, drawn with its DISCOVERED_FROM
  // edge and selected (promoting again shows the promotion made before)
  var PROMOTE = "mutation Promote($id: ID!, $tag: PromotionTag!, $author: String!) {" +
    " promoteItem(id: $id, tag: $tag, author: $author) { promoted { " + ITEM_FIELDS + " }" +
    " edge { edgeId from to kind } } }";

  $("promote-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (!selected) return;
    gql(PROMOTE, { id: selected, tag: $("promote-tag").value, author: actor() })
      .then(function (data) {
        var done = data.promoteItem, e = done.edge;
        cy.batch(function () {
          addItem(done.promoted);
          addParentLinks([done.promoted]);
          if (cy.getElementById(e.edgeId).empty()) {
            cy.add({ group: "edges", classes: "typed",
                     data: { id: e.edgeId, source: e.from, target: e.to, kind: e.kind,
                             colour: colourOf(e.kind) } });
          }
        });
        layout();
        status("Promoted to project knowledge.");
        select(done.promoted.id);
      })
      .catch(function (error) { status(error.message, true); });
  });

  // ---------------------------------------------------------------- contradictions

  var CONTRADICTIONS = "query Contradictions { contradictions(limit: 100) {" +
    " edge { edgeId } a { " + ITEM_FIELDS + " } b { " + ITEM_FIELDS + " } } }";
  var RESOLVE = "mutation Resolve($w: ID!, $l: ID!, $author: String!) {" +
    " resolveContradiction(winnerId: $w, loserId: $l, author: $author) { events { type } } }";

  function side(item) {
    return label(item) + " (authority " + item.authority.toFixed(2) + ")";
  }

  function keepButton(winner, loser) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = "Keep " + side(winner);
    button.addEventListener("click", function () {
      ask("Keep " + side(winner) + " and supersede " + side(loser) + "?", function () {
        gql(RESOLVE, { w: winner.id, l: loser.id, author: actor() })
          .then(function () { status("Resolved."); openContradictions(); })
          .catch(function (error) { status(error.message, true); });
      });
      $("item-panel").hidden = false;
    });
    return button;
  }

  function openContradictions() {
    gql(CONTRADICTIONS)
      .then(function (data) {
        var list = $("contradictions");
        list.textContent = "";
        $("contradictions-pane").hidden = false;
        data.contradictions.forEach(function (c) {
          var li = document.createElement("li");
          li.dataset.edge = c.edge.edgeId;
          [c.a, c.b].forEach(function (item) {
            var view = document.createElement("button");
            view.type = "button";
            view.className = "side";
            view.textContent = side(item);
            view.addEventListener("click", function () { select(item.id); });
            li.appendChild(view);
            var why = document.createElement("button");
            why.type = "button";
            why.textContent = "Provenance of " + side(item);
            why.addEventListener("click", function () {
              select(item.id);
              showProvenance(item.id);
            });
            li.appendChild(why);
          });
          li.appendChild(keepButton(c.a, c.b));
          li.appendChild(keepButton(c.b, c.a));
          list.appendChild(li);
        });
        status(data.contradictions.length + " contradictions to review");
      })
      .catch(function (error) { status(error.message, true); });
  }

  $("open-contradictions").addEventListener("click", openContradictions);
  // ---------------------------------------------------------------- aliases

  var GROUP = "query Group($id: ID!) { aliasGroup(id: $id) { " + ITEM_FIELDS + " } }";
  var MARK = "mutation Mark($a: ID!, $b: ID!, $author: String!) {" +
    " markAlias(a: $a, b: $b, author: $author, skipExisting: true) { events { type } } }";

  function showGroup(id) {
    return gql(GROUP, { id: id }).then(function (data) {
      var group = data.aliasGroup;
      cy.batch(function () { group.forEach(addItem); });
      layout();
      status("Alias group of " + group.length + " items");
    });
  }

  $("alias-group").addEventListener("click", function () {
    if (selected) showGroup(selected).catch(function (error) { status(error.message, true); });
  });

  $("alias-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (!selected) return;
    var a = selected, b = $("alias-of").value.trim();
    ask("Mark " + a + " and " + b + " as aliases (the same thing)?", function () {
      gql(MARK, { a: a, b: b, author: actor() })
        .then(function () { return showGroup(a); })
        .catch(function (error) { status(error.message, true); });
    });
  });

  // ---------------------------------------------------------------- jobs

  // Maintenance jobs: run one, watch it go QUEUED → RUNNING → COMPLETED (the
  // list reads itself again every second while one of its jobs waits or
  // runs, and the panel is open), cancel one; and the schedules, read only.
  var JOB_FIELDS = "id type status scopePrefix dryRun author createdAt finishedAt" +
    " progress result error";
  var JOBS = "query Jobs($limit: Int) { jobs(limit: $limit) { " + JOB_FIELDS + " }" +
    " schedules { id name cron timeZone paused nextRunAt lastJob { id status } } }";
  var RUN_JOB = "mutation RunJob($input: JobInput!) { runJob(input: $input) { id type } }";
  var CANCEL_JOB = "mutation CancelJob($id: ID!) { cancelJob(id: $id) { id status } }";
  var JOB_LIMIT = 20, JOB_POLL_MS = 1000;
  var jobsTimer = null, jobsAsked = 0;

  function active(job) { return job.status === "QUEUED" || job.status === "RUNNING"; }

  // a server time, to the second: "2025-06-01 12:00:03"
  function when(ts) { return ts ? ts.slice(0, 19).replace("T", " ") : "—"; }

  // what a job did, on one line: "duplicates: 2, keyed: 0, unkeyed: 0"
  function summary(result) {
    if (!result) return "";
    return Object.keys(result).map(function (key) {
      var value = result[key];
      return key + ": " + (typeof value === "object" ? JSON.stringify(value) : value);
    }).join(", ");
  }

  function part(parent, className, text) {
    var span = document.createElement("span");
    span.className = className;
    span.textContent = text;
    parent.appendChild(span);
    return span;
  }

  function jobEntry(job) {
    var li = document.createElement("li");
    li.dataset.id = job.id;
    li.dataset.status = job.status;
    var head = document.createElement("div");
    head.className = "job-head";
    part(head, "job-type", job.type);
    head.appendChild(document.createTextNode(" "));
    part(head, "job-status " + job.status.toLowerCase(), job.status);
    if (job.dryRun) part(head, "job-dry", " (dry run)");
    part(head, "job-scope", job.scopePrefix === null ? " · every scope"
      : " · under " + job.scopePrefix);
    li.appendChild(head);
    var done = Math.round((job.progress || 0) * 100);
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = done;
    bar.setAttribute("aria-label", "Progress");
    li.appendChild(bar);
    part(li, "job-progress", " " + done + "%");
    part(li, "job-when", "created " + when(job.createdAt) +
      (job.finishedAt ? " · finished " + when(job.finishedAt) : "") + " by " + job.author);
    if (job.result) part(li, "job-result", summary(job.result));
    if (job.error) part(li, "job-error", job.error);
    if (active(job)) {
      var cancel = document.createElement("button");
      cancel.type = "button";
      cancel.textContent = "Cancel job";
      cancel.addEventListener("click", function () { cancelJob(job.id); });
      li.appendChild(cancel);
    }
    return li;
  }

  function showJobs(jobs) {
    var list = $("jobs");
    list.textContent = "";
    jobs.forEach(function (job) { list.appendChild(jobEntry(job)); });
    if (!jobs.length) {
      var none = document.createElement("li");
      none.className = "none";
      none.textContent = "No jobs yet.";
      list.appendChild(none);
    }
  }

  function showSchedules(schedules) {
    var list = $("schedules");
    list.textContent = "";
    $("schedules-pane").hidden = !schedules.length;
    schedules.forEach(function (s) {
      var li = document.createElement("li");
      li.dataset.id = s.id;
      li.textContent = s.name + " — " + s.cron + " (" + s.timeZone + ")" +
        (s.paused ? " · paused" : " · next " + when(s.nextRunAt)) +
        (s.lastJob ? " · last " + s.lastJob.status : "");
      list.appendChild(li);
    });
  }

  function stopPolling() {
    clearTimeout(jobsTimer);
    jobsTimer = null;
    jobsAsked += 1;  // an answer on its way is dropped
  }

  // read the jobs (and schedules) again; again in a second while one is active
  function refreshJobs() {
    stopPolling();
    var asked = jobsAsked;
    return gql(JOBS, { limit: JOB_LIMIT })
      .then(function (data) {
        if (asked !== jobsAsked || $("jobs-pane").hidden) return;
        showJobs(data.jobs);
        showSchedules(data.schedules);
        if (data.jobs.some(active)) jobsTimer = setTimeout(refreshJobs, JOB_POLL_MS);
      })
      .catch(function (error) { if (asked === jobsAsked) status(error.message, true); });
  }

  function cancelJob(id) {
    gql(CANCEL_JOB, { id: id })
      .then(function (data) {
        var job = data.cancelJob;
        status(job.status === "CANCELLED" ? "Job cancelled."
          : "Job asked to stop after its current batch.");
        refreshJobs();
      })
      .catch(function (error) { status(error.message, true); });
  }

  $("open-jobs").addEventListener("click", function () {
    var opening = $("jobs-pane").hidden;
    $("jobs-pane").hidden = !opening;
    $("open-jobs").setAttribute("aria-expanded", String(opening));
    if (!opening) { stopPolling(); return; }
    $("job-type").focus();
    refreshJobs();
  });

  $("job-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = event.target;
    var input = { type: form.elements.type.value, dryRun: form.elements.dryRun.checked,
                  author: actor() };
    var scope = form.elements.scopePrefix.value.trim();
    if (scope) input.scopePrefix = scope;
    gql(RUN_JOB, { input: input })
      .then(function (data) {
        status("Queued " + data.runJob.type + (input.dryRun ? " (dry run)." : "."));
        refreshJobs();
      })
      .catch(function (error) { status(error.message, true); });
  });

  // for the browser tests: whether the list reads itself again
  window.memexdExplorer.jobsPolling = function () { return jobsTimer !== null; };

  // ---------------------------------------------------------------- live

  // The change feed over graphql-transport-ws: redraw what is shown when it
  // changes; resume after the last event seen when the connection drops.
  var LIVE = "subscription Live($after: ID) { events(after: $after) { id type payload } }";
  var lastEvent = null, updates = 0;

  // the indicator, not the status line: a person's own actions keep theirs
  function liveState(on) {
    $("live").textContent = on ? "live" + (updates ? " · " + updates + " updates" : "") : "offline";
    $("live").className = on ? "on" : "";
  }

  function shown(id) { return !cy.getElementById(id).empty(); }

  var LABEL = "query Label($id: ID!) { item(id: $id, includeRetracted: true) {" +
    " id kind scope summary(maxChars: 60) } }";

  function relabel(id) {
    gql(LABEL, { id: id })
      .then(function (data) {
        if (data.item) cy.getElementById(id).data("label", label(data.item));
      })
      .catch(function (error) { status(error.message, true); });
  }

  function onEvent(event) {
    lastEvent = event.id;
    var body = event.payload, item = body.item, edge = body.edge;
    var changed = false;
    cy.batch(function () {
      if (item && event.type === "memory.created") {
        var near = (item.parents || []).some(shown);
        var scope = $("f-scope").value.trim();
        if (near || (scope && item.scope.indexOf(scope) === 0)) {
          addItem({ id: item.id, kind: item.kind, scope: item.scope, retracted: false,
                    parents: item.parents || [] });
          addParentLinks([{ id: item.id, parents: item.parents || [] }]);
          changed = true;
        }
      } else if (item && shown(item.id)) {
        var node = cy.getElementById(item.id);
        if (event.type === "memory.retracted") node.addClass("retracted");
        else if (event.type === "memory.archived") node.addClass("archived");
        else if (event.type === "memory.unarchived") node.removeClass("archived");
        else relabel(item.id);  // memory.updated: its summary, as the server makes it
        changed = true;
      } else if (edge && event.type === "edge.created" && shown(edge.from) && shown(edge.to)
                 && !shown(edge.edge_id)) {
        cy.add({ group: "edges", classes: "typed", data: { id: edge.edge_id,
          source: edge.from, target: edge.to, kind: edge.kind, colour: colourOf(edge.kind) } });
        changed = true;
      } else if (edge && event.type === "edge.retracted" && shown(edge.edge_id)) {
        cy.getElementById(edge.edge_id).addClass("inactive");
        changed = true;
      }
    });
    if (changed) {
      updates += 1;
      layout();
      liveState(true);
    }
  }

  function connectLive() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + endpoint, "graphql-transport-ws");
    socket.onopen = function () {
      var key = sessionStorage.getItem("memexd.key");
      var payload = key ? { Authorization: "Bearer " + key } : {};
      socket.send(JSON.stringify({ type: "connection_init", payload: payload }));
    };
    socket.onmessage = function (message) {
      var frame = JSON.parse(message.data);
      if (frame.type === "connection_ack") {
        liveState(true);
        socket.send(JSON.stringify({ id: "live", type: "subscribe",
          payload: { query: LIVE, variables: { after: lastEvent } } }));
      } else if (frame.type === "next" && frame.payload.data) {
        onEvent(frame.payload.data.events);
      } else if (frame.type === "ping") {
        socket.send(JSON.stringify({ type: "pong" }));
      }
    };
    socket.onclose = function () {
      liveState(false);
      setTimeout(connectLive, 2000);
    };
    window.memexdExplorer.socket = socket;
  }

  // a new key reconnects the feed with it
  $("key-form").addEventListener("submit", function () {
    var socket = window.memexdExplorer.socket;
    if (socket) socket.close();
  });

  connectLive();
})();
