/*
 * Sluice dashboard: a single page over the cluster's /v1 JSON, updated by polling once a second.
 * Views (by URL fragment): "#/" the jobs list, "#/jobs/<id>" one job. No build step, no framework;
 * the charts are uPlot (served from its WebJar). All text from the server is inserted with
 * textContent, never as HTML.
 */
(function () {
  "use strict";

  var POLL_MILLIS = 1000;
  var THROUGHPUT_POINTS = 120;
  var TOKEN_KEY = "sluice.token";

  // ---- token: ?token=... once, then kept in sessionStorage (this tab only) ----
  (function takeTokenFromUrl() {
    var params = new URLSearchParams(window.location.search);
    if (params.has("token")) {
      sessionStorage.setItem(TOKEN_KEY, params.get("token"));
      params.delete("token");
      var rest = params.toString();
      history.replaceState(null, "", window.location.pathname + (rest ? "?" + rest : "") + window.location.hash);
    }
  })();

  function token() {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  function Unauthorized(message) {
    this.message = message;
  }

  function getJson(path) {
    var headers = { "Accept": "application/json" };
    if (token()) {
      headers["Authorization"] = "Bearer " + token();
    }
    return fetch(path, { headers: headers, cache: "no-store" }).then(function (response) {
      if (response.status === 401) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          throw new Unauthorized(body.error || "A bearer token is required");
        });
      }
      if (!response.ok) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          throw new Error(body.error || (path + " answered HTTP " + response.status));
        });
      }
      return response.json();
    });
  }

  // ---- small DOM helpers ----
  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") {
          node.textContent = attrs[k];
        } else if (k === "className") {
          node.className = attrs[k];
        } else {
          node.setAttribute(k, attrs[k]);
        }
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child !== null && child !== undefined) {
        node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
      }
    }
    return node;
  }

  function svg(tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") {
        node.textContent = attrs[k];
      } else {
        node.setAttribute(k, attrs[k]);
      }
    });
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  function statusBadge(status) {
    return el("span", { className: "status " + status, text: status });
  }

  function time(millis) {
    return millis ? new Date(millis).toLocaleTimeString() : "–";
  }

  function dateTime(millis) {
    return millis ? new Date(millis).toLocaleString() : "–";
  }

  function seconds(millis) {
    return (millis / 1000).toFixed(1) + " s";
  }

  function duration(millis) {
    if (millis < 1000) {
      return Math.round(millis) + " ms";
    }
    if (millis < 120000) {
      return seconds(millis);
    }
    return Math.floor(millis / 60000) + " min " + Math.round((millis % 60000) / 1000) + " s";
  }

  function bytes(n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return (n / 1024).toFixed(1) + " KiB";
    }
    return (n / 1024 / 1024).toFixed(1) + " MiB";
  }

  function count(n) {
    return Number(n).toLocaleString();
  }

  function setConnection(ok, text) {
    var c = $("connection");
    c.textContent = text;
    c.className = ok ? "connection" : "connection bad";
  }

  // ---- views ----
  var current = null; // the view being polled: { poll: fn, stop: fn }
  var timer = null;

  function route() {
    if (current && current.stop) {
      current.stop();
    }
    ["view-jobs", "view-job", "token-form"].forEach(function (id) {
      $(id).hidden = true;
    });
    var hash = window.location.hash || "#/";
    var m = /^#\/jobs\/([0-9a-zA-Z-]+)$/.exec(hash);
    current = m ? jobView(m[1]) : jobsView();
    schedule(0);
  }

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(tick, delay);
  }

  function tick() {
    var view = current;
    view.poll().then(function () {
      if (view === current) {
        setConnection(true, "Updated " + new Date().toLocaleTimeString());
      }
    }, function (error) {
      if (view !== current) {
        return;
      }
      if (error instanceof Unauthorized) {
        showTokenForm(error.message);
        return; // polling resumes once a token is entered
      }
      setConnection(false, "Cannot reach the cluster: " + (error && error.message ? error.message : error));
    }).then(function () {
      if (view === current && $("token-form").hidden) {
        schedule(POLL_MILLIS);
      }
    });
  }

  function showTokenForm(message) {
    setConnection(false, message);
    $("token-form").hidden = false;
    $("token-input").focus();
  }

  $("token-entry").addEventListener("submit", function (event) {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token-input").value.trim());
    $("token-input").value = "";
    $("token-form").hidden = true;
    schedule(0);
  });

  // ---- jobs list ----
  // The server filters and pages (GET /v1/jobs?limit=&status=&name=&mark=&pageToken=): the page holds
  // at most PAGE_SIZE rows whatever the number of jobs. Rows are kept per job id and only a row whose
  // job changed is rebuilt, so a poll that brings no change touches no row.
  var PAGE_SIZE = 50;
  var NAME_DEBOUNCE_MILLIS = 300;

  var jobsQuery = {
    status: "", name: "", attention: false,
    tokens: [null], // tokens[i]: the pageToken of page i (null: the first page)
    page: 0,
    next: null,     // the nextPageToken of the page shown, or null on the last page
    version: 0      // raised by every change of filter or page; answers to older requests are dropped
  };
  var jobRows = {}; // job id -> its <tr>, for the page shown
  var jobsPolls = 0;
  var nameTimer = null;

  function jobsPath() {
    var q = ["limit=" + PAGE_SIZE];
    if (jobsQuery.status) {
      q.push("status=" + encodeURIComponent(jobsQuery.status));
    }
    if (jobsQuery.name) {
      q.push("name=" + encodeURIComponent(jobsQuery.name));
    }
    if (jobsQuery.attention) {
      q.push("mark=crashLoop,checkpointsStale");
    }
    var token = jobsQuery.tokens[jobsQuery.page];
    if (token) {
      q.push("pageToken=" + encodeURIComponent(token));
    }
    return "/v1/jobs?" + q.join("&");
  }

  function filtersChanged() {
    jobsQuery.status = $("filter-status").value;
    jobsQuery.name = $("filter-name").value.trim();
    jobsQuery.attention = $("filter-attention").checked;
    jobsQuery.tokens = [null];
    jobsQuery.page = 0;
    jobsQuery.next = null;
    jobsQuery.version++;
    if (current && current.isJobs) {
      schedule(0);
    }
  }

  function turnPage(delta) {
    if (delta > 0 && jobsQuery.next) {
      jobsQuery.tokens[jobsQuery.page + 1] = jobsQuery.next;
      jobsQuery.page++;
    } else if (delta < 0 && jobsQuery.page > 0) {
      jobsQuery.page--;
    } else {
      return;
    }
    jobsQuery.tokens.length = jobsQuery.page + 1;
    jobsQuery.next = null;
    jobsQuery.version++;
    schedule(0);
  }

  $("filter-status").addEventListener("change", filtersChanged);
  $("filter-attention").addEventListener("change", filtersChanged);
  $("filter-name").addEventListener("input", function () {
    clearTimeout(nameTimer);
    nameTimer = setTimeout(filtersChanged, NAME_DEBOUNCE_MILLIS);
  });
  $("jobs-filter").addEventListener("submit", function (event) {
    event.preventDefault();
    clearTimeout(nameTimer);
    filtersChanged();
  });
  $("jobs-prev").addEventListener("click", function () { turnPage(-1); });
  $("jobs-next").addEventListener("click", function () { turnPage(1); });

  function jobsView() {
    $("view-jobs").hidden = false;
    document.title = "Jobs – Sluice";
    clear($("jobs-body"));
    jobRows = {};
    return {
      isJobs: true,
      poll: function () {
        var overview = getJson("/v1/overview").then(renderOverview, function (e) {
          if (e instanceof Unauthorized) {
            throw e;
          }
          clear($("overview")); // the overview is optional for the list
        });
        var version = jobsQuery.version;
        var jobs = getJson(jobsPath()).then(function (body) {
          if (version === jobsQuery.version) {
            renderJobs(body);
          }
        });
        return Promise.all([jobs, overview]);
      }
    };
  }

  function renderOverview(o) {
    var box = $("overview");
    clear(box);
    function card(label, value) {
      box.appendChild(el("div", { className: "card" }, el("strong", { text: label + ": " }), String(value)));
    }
    card("Version", o.version);
    if (o.leader) {
      card("Leader", o.leader.contenderId + (o.leader.isThisNode ? " (this node)" : ""));
    }
    card("Task executors", (o.taskExecutors || []).length);
    card("Slots free", o.slotsFree + " of " + o.slotsTotal);
    if (o.jobs) {
      card("Jobs running", o.jobs.running);
    }
  }

  function renderJobs(body) {
    var jobs = body.jobs || [];
    if (!jobs.length && jobsQuery.page > 0) {
      // The jobs of this page went away (ended jobs are not dropped, but a failover starts a new list).
      jobsQuery.tokens = [null];
      jobsQuery.page = 0;
      jobsQuery.version++;
      schedule(0);
      return;
    }
    var tbody = $("jobs-body");
    var keep = {};
    jobs.forEach(function (j, i) {
      keep[j.id] = true;
      var row = jobRows[j.id];
      if (!row) {
        row = el("tr", { "data-job-id": j.id });
        jobRows[j.id] = row;
      }
      var signature = JSON.stringify(j);
      if (row.sluiceSignature !== signature) {
        fillJobRow(row, j);
        row.sluiceSignature = signature;
      }
      if (tbody.children[i] !== row) {
        tbody.insertBefore(row, tbody.children[i] || null);
      }
    });
    Object.keys(jobRows).forEach(function (id) {
      if (!keep[id]) {
        tbody.removeChild(jobRows[id]);
        delete jobRows[id];
      }
    });
    jobsQuery.next = body.nextPageToken || null;
    var from = jobsQuery.page * PAGE_SIZE;
    var counter = $("jobs-count");
    var total = body.total === undefined ? jobs.length : body.total;
    counter.textContent = jobs.length ? "Jobs " + count(from + 1) + "–" + count(from + jobs.length) + " of " + count(total)
      + (filtering() ? " matching the filters" : "") : "";
    counter.setAttribute("data-total", String(total));
    counter.setAttribute("data-first", String(jobs.length ? from + 1 : 0));
    counter.setAttribute("data-last", String(from + jobs.length));
    $("jobs-prev").disabled = jobsQuery.page === 0;
    $("jobs-next").disabled = !jobsQuery.next;
    $("jobs-empty").hidden = total > 0 || filtering();
    $("jobs-none-match").hidden = total > 0 || !filtering();
    $("view-jobs").setAttribute("data-polls", String(++jobsPolls));
  }

  function filtering() {
    return !!(jobsQuery.status || jobsQuery.name || jobsQuery.attention);
  }

  function fillJobRow(row, j) {
    clear(row);
    row.appendChild(el("td", null, el("a", { href: "#/jobs/" + j.id, text: j.name || j.id })));
    row.appendChild(el("td", null, statusBadge(j.status), marks(j)));
    row.appendChild(el("td", { text: dateTime(j.startTimeMillis) }));
    row.appendChild(el("td", { text: dateTime(j.lastTransitionMillis) }));
    row.appendChild(el("td", { className: "mono", text: j.id }));
    row.setAttribute("data-status", j.status);
  }

  // ---- one job ----
  function jobView(jobId) {
    $("view-job").hidden = false;
    $("job-id").textContent = jobId;
    var throughput = new ThroughputSeries();
    var graphEdges = { edges: null }; // the job's edges, kept once seen (an ended job's answer has none)
    var charts = { throughput: null, checkpoints: null };
    var onResize = function () {
      [["throughput", "throughput-chart"], ["checkpoints", "checkpoint-chart"]].forEach(function (c) {
        if (charts[c[0]]) {
          charts[c[0]].setSize({ width: chartWidth(c[1]), height: 220 });
        }
      });
    };
    window.addEventListener("resize", onResize);
    clear($("throughput-chart"));
    clear($("checkpoint-chart"));
    return {
      poll: function () {
        return Promise.all([
          getJson("/v1/jobs/" + encodeURIComponent(jobId)),
          getJson("/v1/jobs/" + encodeURIComponent(jobId) + "/checkpoints").catch(function (e) {
            if (e instanceof Unauthorized) {
              throw e;
            }
            return null; // e.g. no checkpoints endpoint answer while the job is not running here
          }),
          getJson("/v1/jobs/" + encodeURIComponent(jobId) + "/savepoints").catch(function (e) {
            if (e instanceof Unauthorized) {
              throw e;
            }
            return null;
          })
        ]).then(function (answers) {
          var job = answers[0];
          if (job.edges && job.edges.length) {
            graphEdges.edges = job.edges;
          }
          renderJob(job, graphEdges.edges);
          throughput.add(job);
          charts.throughput = drawThroughput(charts.throughput, throughput);
          charts.checkpoints = drawCheckpoints(charts.checkpoints, answers[1]);
          renderCheckpointTable(answers[1]);
          renderSavepoints(answers[2]);
        });
      },
      stop: function () {
        window.removeEventListener("resize", onResize);
        [charts.throughput, charts.checkpoints].forEach(function (c) {
          if (c) {
            c.destroy();
          }
        });
      }
    };
  }

  /**
   * The marks of a job that its status alone does not show: a crash loop ("the same error N times
   * since T") and stale checkpoints ("no checkpoint since T"); null when neither applies.
   */
  function marks(job) {
    if (!job.crashLoop && !job.checkpointsStale) {
      return null;
    }
    var list = el("ul", { className: "marks" });
    if (job.crashLoop) {
      list.appendChild(el("li", {
        className: "mark" + (job.crashLoop.restoreNeverSucceeds ? " never" : ""),
        "data-mark": "crash-loop", "data-count": String(job.crashLoop.count), title: job.crashLoop.cause,
        text: "Crash loop: the same error " + job.crashLoop.count + " times since " + dateTime(job.crashLoop.sinceMillis)
          + (job.crashLoop.restoreNeverSucceeds ? " — restore from checkpoint " + job.crashLoop.restoreCheckpointId
            + " can never succeed" : "")
      }));
    }
    if (job.checkpointsStale) {
      list.appendChild(el("li", {
        className: "mark", "data-mark": "checkpoints-stale",
        text: "No checkpoint since " + dateTime(job.checkpointsStale.sinceMillis)
      }));
    }
    return list;
  }

  /** The job page: the marks with the cause and what to do. */
  function renderMarks(job) {
    var box = $("marks");
    box.hidden = !job.crashLoop && !job.checkpointsStale;
    var list = $("marks-list");
    clear(list);
    if (job.crashLoop) {
      list.appendChild(el("li", { "data-mark": "crash-loop" }, job.crashLoop.summary,
        el("br"), el("span", { className: "hint", text: job.crashLoop.advice })));
    }
    if (job.checkpointsStale) {
      list.appendChild(el("li", { "data-mark": "checkpoints-stale", text: job.checkpointsStale.summary
        + " (threshold " + seconds(job.checkpointsStale.thresholdMillis) + ", checkpoints.stale-after)" }));
    }
  }

  function renderJob(job, edges) {
    document.title = (job.name || job.id) + " – Sluice";
    $("job-title").textContent = job.name || job.id;
    var st = $("job-status");
    st.textContent = job.status;
    st.className = "status " + job.status;
    st.setAttribute("data-status", job.status);
    renderRecovery(job);
    renderMarks(job);
    $("failure").hidden = !job.failure;
    $("failure-text").textContent = job.failure ? job.failure.message : "";
    renderTimeline(job.transitions || []);
    renderRestarts(job.restarts);
    renderGraph(job.vertices || [], edges);
    renderVertices(job.vertices || []);
  }

  /** INITIALIZING: the recovery progress, in words. */
  function renderRecovery(job) {
    var r = job.recovery;
    var box = $("recovery");
    box.hidden = !(job.status === "INITIALIZING" && r);
    if (box.hidden) {
      return;
    }
    var words = "Recovery attempt " + r.attempt + ": " + r.phase + ". Recovering for " + seconds(r.elapsedMillis) + ".";
    if (r.pointersFound >= 0) {
      words += " Checkpoint pointers found: " + r.pointersFound + "; metadata loaded: " + r.metadataLoaded + ".";
    }
    if (r.nextRetryMillis > 0) {
      words += " Next attempt in " + seconds(r.nextRetryMillis) + ".";
    }
    var text = $("recovery-text");
    text.textContent = words;
    text.setAttribute("data-attempt", String(r.attempt));
    var err = $("recovery-error");
    err.hidden = !r.lastError;
    err.textContent = r.lastError ? "Last error: " + r.lastError : "";
    var events = $("recovery-events");
    clear(events);
    (r.events || []).forEach(function (e) {
      events.appendChild(el("li", { text: e }));
    });
  }

  function renderTimeline(transitions) {
    var list = $("timeline");
    var bar = $("timeline-bar");
    clear(list);
    clear(bar);
    var now = Date.now();
    var start = transitions.length ? transitions[0].timestampMillis : now;
    var total = Math.max(1, now - start);
    transitions.forEach(function (t, i) {
      var end = i + 1 < transitions.length ? transitions[i + 1].timestampMillis : now;
      var spent = Math.max(0, end - t.timestampMillis);
      list.appendChild(el("li", { "data-status": t.status },
        statusBadge(t.status), " at " + time(t.timestampMillis) + " (" + duration(spent) + ")"));
      bar.appendChild(el("span", {
        className: t.status, title: t.status + " for " + duration(spent),
        style: "flex-grow: " + (spent / total).toFixed(4)
      }));
    });
  }

  function renderRestarts(restarts) {
    var p = $("restarts");
    clear(p);
    if (!restarts) {
      return;
    }
    p.appendChild(document.createTextNode("Restarts: " + restarts.count));
    var recent = restarts.recent || [];
    if (recent.length) {
      var ul = el("ul");
      recent.slice().reverse().forEach(function (r) {
        ul.appendChild(el("li", { text: time(r.timestampMillis) + ": " + r.cause }));
      });
      p.appendChild(ul);
    }
  }

  /**
   * The operator graph: one box per vertex in columns by depth (distance from a source), with an
   * arrow per edge. Without edges in the answer, the vertices are drawn as a chain in their order.
   */
  function renderGraph(vertices, knownEdges) {
    var box = $("graph");
    $("graph-empty").hidden = vertices.length > 0;
    box.hidden = vertices.length === 0;
    if (!vertices.length) {
      clear(box);
      return;
    }
    var edges = knownEdges || vertices.slice(1).map(function (v, i) {
      return { source: vertices[i].id, target: v.id, partitioning: "" };
    });
    var depth = {};
    vertices.forEach(function (v) {
      depth[v.id] = 0;
    });
    for (var pass = 0; pass < vertices.length; pass++) {
      edges.forEach(function (e) {
        if (depth[e.target] !== undefined && depth[e.source] !== undefined) {
          depth[e.target] = Math.max(depth[e.target], depth[e.source] + 1);
        }
      });
    }
    var W = 200, H = 64, GAPX = 70, GAPY = 24, rowsPerColumn = {}, pos = {};
    vertices.forEach(function (v) {
      var col = depth[v.id];
      var row = rowsPerColumn[col] || 0;
      rowsPerColumn[col] = row + 1;
      pos[v.id] = { x: 10 + col * (W + GAPX), y: 10 + row * (H + GAPY) };
    });
    var cols = Math.max.apply(null, [1].concat(Object.keys(rowsPerColumn).map(function (c) { return +c + 1; })));
    var rows = Math.max.apply(null, [1].concat(Object.keys(rowsPerColumn).map(function (c) { return rowsPerColumn[c]; })));
    var root = svg("svg", { width: 20 + cols * W + (cols - 1) * GAPX, height: 20 + rows * H + (rows - 1) * GAPY });
    var defs = svg("defs");
    var marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "8",
      markerHeight: "8", orient: "auto-start-reverse" });
    marker.appendChild(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#5a7799" }));
    defs.appendChild(marker);
    root.appendChild(defs);
    edges.forEach(function (e) {
      var a = pos[e.source], b = pos[e.target];
      if (!a || !b) {
        return;
      }
      var x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
      root.appendChild(svg("path", { "class": "edge", d: "M " + x1 + " " + y1 + " C " + (x1 + GAPX / 2) + " " + y1
        + ", " + (x2 - GAPX / 2) + " " + y2 + ", " + x2 + " " + y2, "marker-end": "url(#arrow)" }));
      if (e.partitioning) {
        root.appendChild(svg("text", { "class": "edge-label", x: (x1 + x2) / 2 - 20, y: (y1 + y2) / 2 - 6,
          text: e.partitioning.toLowerCase() }));
      }
    });
    var labels = [];
    vertices.forEach(function (v) {
      var p = pos[v.id];
      var g = svg("g", { "class": "box", "data-vertex-id": String(v.id) });
      g.appendChild(svg("rect", { x: p.x, y: p.y, width: W, height: H, rx: 6 }));
      g.appendChild(svg("text", { x: p.x + 10, y: p.y + 22, text: truncate(v.name, 26) }));
      g.appendChild(svg("text", { "class": "sub", x: p.x + 10, y: p.y + 44,
        text: "parallelism " + v.parallelism + " · " + v.runningSubtasks + " running" }));
      g.appendChild(svg("title", { text: v.name }));
      root.appendChild(g);
      labels.push(v.name + " (parallelism " + v.parallelism + ")");
    });
    box.setAttribute("aria-label", "Operator graph: " + labels.join(", then ") + ".");
    clear(box);
    box.appendChild(root);
  }

  function truncate(s, n) {
    return s.length > n ? s.slice(0, n - 1) + "…" : s;
  }

  function renderVertices(vertices) {
    var tbody = $("vertices-body");
    clear(tbody);
    vertices.forEach(function (v) {
      tbody.appendChild(el("tr", null, el("td", { text: v.name }), el("td", { className: "num", text: String(v.parallelism) }),
        el("td", { className: "num", text: String(v.runningSubtasks) }),
        el("td", { className: "num", text: count(v.recordsIn) }), el("td", { className: "num", text: count(v.recordsOut) }),
        el("td", { text: (v.subtasks || []).map(function (t) { return t.index + ": " + t.state + (t.awaitingFinalCheckpoint ? " (awaiting final checkpoint)" : ""); }).join(", ") || "–" }),
        el("td", { text: commitsText(v.commits) })));
    });
  }

  // An exactly-once sink's commits: pending, the oldest's age, retries and the latest error; "–" for other operators.
  function commitsText(c) {
    if (!c) {
      return "–";
    }
    var s = c.pendingCommittables + " pending";
    if (c.pendingCommittables > 0) {
      s += " (oldest " + (c.oldestPendingAgeMillis / 1000).toFixed(1) + " s)";
    }
    s += ", " + c.committed + " committed";
    if (c.commitRetries > 0) {
      s += ", " + c.commitRetries + " retries";
    }
    if (c.lastCommitError) {
      s += ": " + c.lastCommitError;
    }
    return s;
  }

  // ---- throughput: records per second per vertex, from the change of its counters between polls ----
  function ThroughputSeries() {
    this.names = null;
    this.ids = null;
    this.x = [];
    this.ys = [];
    this.last = null;
  }

  ThroughputSeries.prototype.add = function (job) {
    var vertices = job.vertices || [];
    if (!vertices.length) {
      return;
    }
    if (!this.ids) {
      this.ids = vertices.map(function (v) { return v.id; });
      this.names = vertices.map(function (v) { return v.name; });
      this.ys = vertices.map(function () { return []; });
    }
    var now = Date.now() / 1000;
    var counts = {};
    vertices.forEach(function (v) {
      // A source reads nothing from channels: its "in" is what its reader emitted, the same as its out.
      counts[v.id] = v.recordsIn > 0 ? v.recordsIn : v.recordsOut;
    });
    if (this.last) {
      var dt = now - this.last.t;
      var self = this;
      this.x.push(now);
      this.ids.forEach(function (id, i) {
        var d = counts[id] - self.last.counts[id];
        // Counters start again from 0 when tasks restart: no rate for that interval.
        self.ys[i].push(dt > 0 && d >= 0 ? d / dt : null);
      });
      if (this.x.length > THROUGHPUT_POINTS) {
        this.x.shift();
        this.ys.forEach(function (y) { y.shift(); });
      }
    }
    this.last = { t: now, counts: counts };
  };

  var PALETTE = ["#1a56b3", "#1e7b34", "#a35a00", "#7a2e9e", "#b3261e", "#00707a"];

  function chartWidth(id) {
    return Math.max(320, $(id).clientWidth || 800);
  }

  function drawThroughput(chart, series) {
    // Two rates at least: uPlot cannot scale a time axis over a single point.
    var hasData = !!(series.ids && series.x.length >= 2);
    $("throughput-empty").hidden = hasData;
    $("throughput-chart").hidden = !hasData && !chart;
    if (!hasData || typeof uPlot === "undefined") {
      return chart;
    }
    var data = [series.x.slice()].concat(series.ys.map(function (y) { return y.slice(); }));
    if (chart && chart.series.length === data.length) {
      chart.setData(data);
      return chart;
    }
    if (chart) {
      chart.destroy();
    }
    var opts = {
      title: "Records per second",
      width: chartWidth("throughput-chart"), height: 220,
      series: [{}].concat(series.names.map(function (name, i) {
        // Every other line dashed, so that operators with the same rate (a chain) stay visible.
        return { label: name, stroke: PALETTE[i % PALETTE.length], width: 2, spanGaps: false, dash: i % 2 ? [8, 5] : undefined,
          value: function (u, v) { return v == null ? "–" : Math.round(v).toLocaleString() + "/s"; } };
      })),
      axes: [{}, { label: "records/s", size: 70 }]
    };
    return new uPlot(opts, data, $("throughput-chart"));
  }

  function drawCheckpoints(chart, body) {
    var history = body && body.history ? body.history.slice().sort(function (a, b) { return a.id - b.id; }) : [];
    $("checkpoint-chart").hidden = !history.length && !chart;
    if (!history.length || typeof uPlot === "undefined") {
      return chart;
    }
    var data = [
      history.map(function (c) { return c.id; }),
      history.map(function (c) { return c.durationMillis; }),
      history.map(function (c) { return c.sizeBytes / 1024; })
    ];
    if (chart) {
      chart.setData(data);
      return chart;
    }
    var opts = {
      title: "Checkpoint duration and size",
      width: chartWidth("checkpoint-chart"), height: 220,
      scales: {
        x: { time: false, range: function (u, min, max) { return [min - 0.5, max + 0.5]; } },
        y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.15 : 1]; } },
        kib: { range: function (u, min, max) { return [0, max > 0 ? max * 1.15 : 1]; } }
      },
      series: [
        { label: "checkpoint" },
        { label: "duration (ms)", stroke: "#1a56b3", fill: "rgba(26,86,179,0.25)", paths: uPlot.paths.bars({ size: [0.6, 40] }),
          points: { show: false } },
        { label: "size (KiB)", stroke: "#a35a00", width: 2, scale: "kib" }
      ],
      axes: [{ label: "checkpoint id", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] }, { label: "ms", size: 60 }, { side: 1, scale: "kib", label: "KiB", size: 60,
        grid: { show: false } }]
    };
    return new uPlot(opts, data, $("checkpoint-chart"));
  }

  function renderCheckpointTable(body) {
    var summary = $("checkpoint-summary");
    var tbody = $("checkpoints-body");
    clear(tbody);
    if (!body) {
      summary.textContent = "No checkpoint information yet.";
      return;
    }
    var text = "Completed: " + body.completed + ", failed: " + body.failed + ".";
    if (body.latestId >= 0) {
      text += " Latest: " + body.latestId + ".";
    }
    if (body.restoredId !== undefined && body.restoredId !== null && body.restoredId >= 0) {
      text += " Restored from: " + body.restoredId + ".";
    }
    if (body.failingSinceMillis) {
      text += " Checkpoints have been failing since " + time(body.failingSinceMillis) + ".";
    }
    if (body.lastFailure) {
      text += " Last failure: " + body.lastFailure;
    }
    summary.textContent = text;
    (body.history || []).slice().sort(function (a, b) { return b.id - a.id; }).slice(0, 10).forEach(function (c) {
      tbody.appendChild(el("tr", null, el("td", { className: "num", text: String(c.id) }),
        el("td", { text: time(c.triggerTimestampMillis) }), el("td", { className: "num", text: duration(c.durationMillis) }),
        el("td", { className: "num", text: bytes(c.sizeBytes) }),
        el("td", { text: (c.inline ? "inline in metadata" : "state files") + (c.restored ? ", restored" : "") })));
    });
  }

  /** The job's savepoints (GET /v1/jobs/{id}/savepoints), newest first: id, time, size, the path to restore from. */
  function renderSavepoints(body) {
    var summary = $("savepoint-summary");
    var tbody = $("savepoints-body");
    clear(tbody);
    var list = body && body.savepoints ? body.savepoints : [];
    summary.textContent = list.length ? list.length + " savepoint(s) taken by this job manager."
      : "No savepoints taken by this job manager. Take one with: sluice savepoint " + $("job-id").textContent;
    list.forEach(function (s) {
      tbody.appendChild(el("tr", { "data-savepoint": String(s.id) }, el("td", { className: "num", text: String(s.id) }),
        el("td", { text: dateTime(s.completionTimestampMillis) }), el("td", { className: "num", text: bytes(s.sizeBytes) }),
        el("td", { text: s.path })));
    });
  }

  window.addEventListener("hashchange", route);
  route();
})();
