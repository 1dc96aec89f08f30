/* masrl catalogue site: search, facets, sorting and detail view of the paper list; search and
   filters of the exclusion log. Plain JavaScript, no library, nothing fetched: the data are in the
   page (<script type="application/json" id="site-data">). The view lives in the URL's fragment
   (#q=...&category=rl_method&paper=key), so a link reproduces it, from disk or from a server.
   Every change of view goes through the fragment: controls write it, "hashchange" renders it.
   Text from the data is only ever set with textContent, never parsed as HTML. */
(function () {
  "use strict";

  function params() {
    return new URLSearchParams(window.location.hash.replace(/^#/, ""));
  }

  /* A fragment without "=" is an in-page anchor (the skip link, a heading), not a view. */
  function isView() {
    return window.location.hash === "" || window.location.hash.indexOf("=") >= 0;
  }

  function go(search, replace) {
    var hash = "#" + search.toString();
    if (hash === (window.location.hash || "#")) { return; }
    if (replace) {
      window.location.replace(hash);
    } else {
      window.location.hash = hash;
    }
  }

  // Latin letters Unicode does not decompose into a letter and a mark, spelled as masrl's keys spell them
  // (masrl.core.fold): a search for "Walesa" finds Wałęsa, "Sogaard" Søgaard.
  // (each paper's "ascii" text, written by masrl, holds every other letter as its keys spell it: Əliyev as eliyev)
  var LETTERS = {"ł": "l", "ø": "o", "ß": "ss", "æ": "ae", "œ": "oe", "đ": "d", "þ": "th", "ð": "d", "ı": "i",
                 "ħ": "h", "ə": "e", "ɛ": "e", "ɔ": "o", "ŋ": "ng"};

  function fold(text) {
    // lower case, compatibility forms (the ligature ﬃ is ffi), accents and apostrophes taken out ("obrien" finds
    // O'Brien and O’Brien, "hawaii" Hawaiʻi), these letters spelled
    return String(text).toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
      .replace(/[łøßæœđþðıħəɛɔŋ]/g, function (c) { return LETTERS[c]; })
      .replace(/['`\u2018\u2019\u02bb\u02bc]/g, "").toLowerCase();  // again: a compatibility capital (ℝ) is R
  }

  function terms(query) {
    return fold(query).split(/\s+/).filter(function (t) { return t.length > 0; });
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function safeUrl(url) {
    return typeof url === "string" && /^https?:\/\/[^\s]+$/i.test(url) ? url : null;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var skip = document.querySelector(".skip-link");
    if (skip) {
      skip.addEventListener("click", function (event) {
        event.preventDefault();
        document.getElementById("main").focus();
      });
    }
    var page = document.body.getAttribute("data-page");
    if (page === "index.html") { papers(); }
    if (page === "screening.html") { exclusionLog(); }
  });

  /* ------------------------------------------------------------------ paper list */
  function papers() {
    var data = JSON.parse(document.getElementById("site-data").textContent);
    var facets = data.facets;
    /* The fields whose values are shown with their code (the taxonomy's show_code). */
    var codeFields = data.code_fields || [];
    /* Fields, codes and keys are the survey's data (a vocabulary may hold "__proto__" or
       "constructor") and the fragment's, which anyone can write: every lookup by them goes through
       a Map, never a property of a plain object (where "__proto__" sets the prototype and holds
       nothing). */
    var facetOf = new Map();
    var order = new Map();
    facets.forEach(function (f) {
      facetOf.set(f.field, f);
      var codes = new Map();
      f.values.forEach(function (v, i) { codes.set(v.code, i); });
      order.set(f.field, codes);
    });
    var byKey = new Map();
    var haystack = new Map();
    var position = new Map();
    data.papers.forEach(function (p, i) {
      byKey.set(p.key, p);
      position.set(p.key, i);
      haystack.set(p.key, fold([p.title, p.authors.join(" "), p.one_liner, p.venue].join(" \u0000 ")) +
        (p.ascii ? " \u0000 " + p.ascii : ""));
    });
    var sortable = Array.prototype.map.call(document.querySelectorAll("#papers thead button"),
      function (b) { return b.getAttribute("data-sort"); });
    var form = document.getElementById("filters");
    var search = document.getElementById("q");
    var tbody = document.querySelector("#papers tbody");
    var rows = new Map();
    Array.prototype.forEach.call(tbody.rows, function (tr) { rows.set(tr.getAttribute("data-key"), tr); });
    var statusLine = document.getElementById("status");
    var chips = document.getElementById("active");
    var none = document.getElementById("none");
    var dialog = document.getElementById("detail");
    form.hidden = false;

    function readState() {
      var p = params();
      var sort = p.get("sort") || "";
      var state = { q: p.get("q") || "", filters: new Map(), keys: p.getAll("key"), paper: p.get("paper") || "",
                    sort: sortable.indexOf(sort) >= 0 ? sort : "", dir: p.get("dir") === "desc" ? "desc" : "asc" };
      facets.forEach(function (f) {
        state.filters.set(f.field, p.getAll(f.field).filter(function (v) { return order.get(f.field).has(v); }));
      });
      return state;
    }

    function writeState(state, replace) {
      var p = new URLSearchParams();
      if (state.q) { p.append("q", state.q); }
      facets.forEach(function (f) {
        var codes = order.get(f.field);
        state.filters.get(f.field).slice().sort(function (a, b) { return codes.get(a) - codes.get(b); })
          .forEach(function (v) { p.append(f.field, v); });
      });
      state.keys.forEach(function (k) { p.append("key", k); });
      if (state.sort) { p.append("sort", state.sort); p.append("dir", state.dir); }
      if (state.paper) { p.append("paper", state.paper); }
      go(p, replace);
    }

    function matchesFacet(paper, field, values) {
      if (!values.length) { return true; }
      var tag = Object.hasOwn(paper.tags, field) ? paper.tags[field] : undefined;
      if (facetOf.get(field).multi) {
        return values.every(function (v) { return (tag || []).indexOf(v) >= 0; });
      }
      return values.indexOf(tag) >= 0;
    }

    function matches(paper, state, except) {
      var words = terms(state.q);
      var text = haystack.get(paper.key);
      if (!words.every(function (w) { return text.indexOf(w) >= 0; })) { return false; }
      if (state.keys.length && state.keys.indexOf(paper.key) < 0) { return false; }
      return facets.every(function (f) {
        return f.field === except || matchesFacet(paper, f.field, state.filters.get(f.field));
      });
    }

    function sortValue(paper, column) {
      if (column === "title") { return fold(paper.title); }
      if (column === "authors") { return fold(paper.authors_short); }
      if (column === "venue") { return fold(paper.venue); }
      if (column === "year") { return paper.year; }
      var tag = Object.hasOwn(paper.tags, column) ? paper.tags[column] : undefined;
      var codes = order.get(column);
      if (!codes) { return 1e6; }
      if (Array.isArray(tag)) { return tag.length && codes.has(tag[0]) ? codes.get(tag[0]) : 1e6; }
      return codes.has(tag) ? codes.get(tag) : 1e6;
    }

    function compare(state) {
      return function (a, b) {
        if (state.sort) {
          var x = sortValue(a, state.sort);
          var y = sortValue(b, state.sort);
          if (x < y) { return state.dir === "desc" ? 1 : -1; }
          if (x > y) { return state.dir === "desc" ? -1 : 1; }
        }
        return position.get(a.key) - position.get(b.key);
      };
    }

    function label(field, code) {
      var codes = order.get(field);
      var v = codes && codes.has(code) ? facetOf.get(field).values[codes.get(code)] : undefined;
      return v ? v.label : code;
    }

    function renderFacets(state) {
      facets.forEach(function (f) {
        var selected = state.filters.get(f.field);
        f.values.forEach(function (v) {
          var n = 0;
          data.papers.forEach(function (p) {
            if (!matches(p, state, f.field)) { return; }
            if (f.multi ? matchesFacet(p, f.field, selected.concat([v.code]))
                        : Object.hasOwn(p.tags, f.field) && p.tags[f.field] === v.code) { n += 1; }
          });
          var count = form.querySelector('[data-count="' + CSS.escape(f.field + "=" + v.code) + '"]');
          count.textContent = String(n);
          var box = form.querySelector('input[name="' + CSS.escape(f.field) + '"][value="' + CSS.escape(v.code) + '"]');
          box.checked = selected.indexOf(v.code) >= 0;
          box.parentNode.classList.toggle("zero", n === 0 && !box.checked);
        });
        var details = form.querySelector('details[data-field="' + CSS.escape(f.field) + '"]');
        if (selected.length) { details.open = true; }
      });
    }

    function renderChips(state) {
      chips.textContent = "";
      function chip(text, remove) {
        var li = el("li");
        var button = el("button", { type: "button", "aria-label": "Remove filter: " + text }, text + " \u00d7");
        button.addEventListener("click", function () { remove(); writeState(state, false); });
        li.appendChild(button);
        chips.appendChild(li);
      }
      if (state.q) { chip("Search: " + state.q, function () { state.q = ""; }); }
      facets.forEach(function (f) {
        state.filters.get(f.field).forEach(function (v) {
          chip(f.label + ": " + label(f.field, v), function () {
            state.filters.set(f.field, state.filters.get(f.field).filter(function (x) { return x !== v; }));
          });
        });
      });
      if (state.keys.length) {
        chip(state.keys.length + " selected record" + (state.keys.length === 1 ? "" : "s"), function () { state.keys = []; });
      }
    }

    function renderTable(state) {
      var shown = data.papers.filter(function (p) { return matches(p, state, null); });
      var sorted = data.papers.slice().sort(compare(state));
      sorted.forEach(function (p) {
        var tr = rows.get(p.key);
        tr.hidden = shown.indexOf(p) < 0;
        tbody.appendChild(tr);
      });
      Array.prototype.forEach.call(document.querySelectorAll("#papers thead th"), function (th) {
        var col = th.getAttribute("data-col");
        if (state.sort === col) {
          th.setAttribute("aria-sort", state.dir === "desc" ? "descending" : "ascending");
        } else {
          th.removeAttribute("aria-sort");
        }
      });
      var total = data.papers.length;
      statusLine.textContent = shown.length === total ? "Showing all " + total + (total === 1 ? " record" : " records")
        : "Showing " + shown.length + " of " + total + (total === 1 ? " record" : " records");
      none.hidden = shown.length > 0;
    }

    function renderDetail(state) {
      var paper = byKey.get(state.paper);
      if (!paper) {
        if (dialog.open) { dialog.close(); }
        return;
      }
      if (dialog.getAttribute("data-key") !== paper.key) { fillDetail(paper); }
      if (!dialog.open) { dialog.showModal(); }
    }

    function fillDetail(paper) {
      dialog.textContent = "";
      dialog.setAttribute("data-key", paper.key);
      dialog.appendChild(el("h2", { id: "detail-title" }, paper.title));
      var authors = paper.authors.join(", ") + (paper.more_authors ? ", et al." : "");
      dialog.appendChild(el("p", { "class": "byline" }, [authors || "Unknown authors", paper.year, paper.venue]
        .filter(function (x) { return x !== ""; }).join(" · ")));
      if (paper.one_liner) { dialog.appendChild(el("p", { "class": "lead" }, paper.one_liner)); }

      dialog.appendChild(el("h3", {}, "Identifiers"));
      var ids = el("ul", { "class": "identifiers" });
      paper.identifiers.forEach(function (id) {
        var li = el("li");
        li.appendChild(document.createTextNode(id.label + ": "));
        var url = safeUrl(id.url);
        if (url) {
          li.appendChild(el("a", { href: url, rel: "noopener noreferrer" }, id.id));
        } else {
          li.appendChild(document.createTextNode(id.id));
        }
        ids.appendChild(li);
      });
      if (!paper.identifiers.length) { ids.appendChild(el("li", {}, "none recorded")); }
      dialog.appendChild(ids);

      dialog.appendChild(el("h3", {}, "Tags"));
      var table = el("table", { "class": "compact" });
      table.appendChild(el("caption", { "class": "visually-hidden" }, "Tags of this record and where each comes from"));
      var head = el("tr");
      ["Field", "Value", "Provenance"].forEach(function (h) { head.appendChild(el("th", { scope: "col" }, h)); });
      table.appendChild(el("thead")).appendChild(head);
      var body = el("tbody");
      paper.tag_list.forEach(function (tag) {
        var tr = el("tr");
        tr.appendChild(el("th", { scope: "row" }, tag.label));
        var td = el("td");
        if (!tag.values.length) { td.textContent = "none"; }
        tag.values.forEach(function (v, i) {
          if (i) { td.appendChild(document.createTextNode(", ")); }
          var link = new URLSearchParams();
          link.append(tag.field, v.code);
          td.appendChild(el("a", { href: "#" + link.toString(), title: "All records with this value" },
            (codeFields.indexOf(tag.field) >= 0 ? v.code + " " : "") + v.label));
        });
        tr.appendChild(td);
        tr.appendChild(el("td", {}, tag.provenance));
        body.appendChild(tr);
      });
      table.appendChild(body);
      dialog.appendChild(table);
      if (paper.notes) {
        dialog.appendChild(el("h3", {}, "Notes"));
        dialog.appendChild(el("p", {}, paper.notes));
      }

      dialog.appendChild(el("h3", {}, "BibTeX"));
      var area = el("textarea", { id: "bibtex", readonly: "", rows: "9", "aria-label": "BibTeX entry" });
      area.value = paper.bibtex;
      dialog.appendChild(area);
      var actions = el("p", { "class": "actions" });
      var copy = el("button", { type: "button", id: "copy-bibtex" }, "Copy BibTeX");
      var copied = el("span", { role: "status", id: "copy-status" });
      copy.addEventListener("click", function () {
        area.select();
        function done() { copied.textContent = "Copied to the clipboard."; }
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(paper.bibtex).then(done, function () {
            copied.textContent = document.execCommand("copy") ? "Copied to the clipboard." : "Selected: press Ctrl+C to copy.";
          });
        } else {
          copied.textContent = document.execCommand("copy") ? "Copied to the clipboard." : "Selected: press Ctrl+C to copy.";
        }
      });
      var permalink = new URLSearchParams();
      permalink.append("paper", paper.key);
      actions.appendChild(copy);
      actions.appendChild(el("a", { href: "#" + permalink.toString() }, "Link to this paper"));
      var close = el("button", { type: "button", id: "close-detail" }, "Close");
      close.addEventListener("click", function () { dialog.close(); });
      actions.appendChild(close);
      actions.appendChild(copied);
      dialog.appendChild(actions);
    }

    dialog.addEventListener("close", function () {
      var state = readState();
      if (state.paper) {
        var key = state.paper;
        state.paper = "";
        writeState(state, false);
        var row = rows.has(key) ? rows.get(key) : null;
        var link = row && row.querySelector("a.open");
        if (link && !row.hidden) { link.focus(); }
      }
    });

    function render() {
      if (!isView()) { return; }
      var state = readState();
      if (document.activeElement !== search && search.value !== state.q) { search.value = state.q; }
      renderFacets(state);
      renderChips(state);
      renderTable(state);
      renderDetail(state);
    }

    search.addEventListener("input", function () {
      var state = readState();
      state.q = search.value.trim() ? search.value : "";
      writeState(state, true);
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("change", function (event) {
      var box = event.target;
      if (box.type !== "checkbox") { return; }
      var state = readState();
      if (!state.filters.has(box.name)) { return; }
      var values = state.filters.get(box.name).filter(function (v) { return v !== box.value; });
      if (box.checked) { values.push(box.value); }
      state.filters.set(box.name, values);
      writeState(state, false);
    });
    document.getElementById("clear").addEventListener("click", function () {
      search.value = "";
      go(new URLSearchParams(), false);
    });
    Array.prototype.forEach.call(document.querySelectorAll("#papers thead button"), function (button) {
      button.addEventListener("click", function () {
        var state = readState();
        var column = button.getAttribute("data-sort");
        if (state.sort === column) {
          state.dir = state.dir === "asc" ? "desc" : "asc";
        } else {
          state.sort = column;
          state.dir = column === "year" ? "desc" : "asc";
        }
        writeState(state, false);
      });
    });
    tbody.addEventListener("click", function (event) {
      var link = event.target.closest("a.open");
      if (!link) { return; }
      event.preventDefault();
      var state = readState();
      state.paper = link.closest("tr").getAttribute("data-key");
      writeState(state, false);
    });
    window.addEventListener("hashchange", render);
    render();
  }

  /* ------------------------------------------------------------------ exclusion log */
  function exclusionLog() {
    var form = document.getElementById("log-filters");
    var search = document.getElementById("xq");
    var selects = { stage: document.getElementById("xstage"), reason_class: document.getElementById("xreason"),
                    near_miss: document.getElementById("xnear") };
    var rows = Array.prototype.slice.call(document.querySelectorAll("#exclusions tbody tr"));
    var text = rows.map(function (tr) { return fold(tr.textContent); });
    var statusLine = document.getElementById("xstatus");
    var none = document.getElementById("xnone");
    form.hidden = false;

    function readState() {
      var p = params();
      var state = { q: p.get("q") || "" };
      Object.keys(selects).forEach(function (name) {
        var value = p.get(name) || "";
        var allowed = Array.prototype.some.call(selects[name].options, function (o) { return o.value === value; });
        state[name] = allowed ? value : "";
      });
      return state;
    }

    function writeState(state, replace) {
      var p = new URLSearchParams();
      if (state.q) { p.append("q", state.q); }
      Object.keys(selects).forEach(function (name) { if (state[name]) { p.append(name, state[name]); } });
      go(p, replace);
    }

    function render() {
      if (!isView()) { return; }
      var state = readState();
      if (document.activeElement !== search && search.value !== state.q) { search.value = state.q; }
      Object.keys(selects).forEach(function (name) { selects[name].value = state[name]; });
      var words = terms(state.q);
      var shown = 0;
      rows.forEach(function (tr, i) {
        var ok = words.every(function (w) { return text[i].indexOf(w) >= 0; })
          && (!state.stage || tr.getAttribute("data-stage") === state.stage)
          && (!state.reason_class || tr.getAttribute("data-reason-class") === state.reason_class)
          && (!state.near_miss || tr.getAttribute("data-near-miss") === state.near_miss);
        tr.hidden = !ok;
        if (ok) { shown += 1; }
      });
      statusLine.textContent = shown === rows.length ? "Showing all " + rows.length + (rows.length === 1 ? " excluded record" : " excluded records")
        : "Showing " + shown + " of " + rows.length + (rows.length === 1 ? " excluded record" : " excluded records");
      none.hidden = shown > 0;
    }

    search.addEventListener("input", function () {
      var state = readState();
      state.q = search.value.trim() ? search.value : "";
      writeState(state, true);
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    Object.keys(selects).forEach(function (name) {
      selects[name].addEventListener("change", function () {
        var state = readState();
        state[name] = selects[name].value;
        writeState(state, false);
      });
    });
    window.addEventListener("hashchange", render);
    /* A count of the flow table filters the log below it: bring the log into view. */
    var flow = document.getElementById("flow-table");
    if (flow) {
      flow.addEventListener("click", function (event) {
        if (event.target.closest("a")) {
          window.setTimeout(function () { document.getElementById("log-heading").scrollIntoView(); }, 0);
        }
      });
    }
    render();
  }
}());
