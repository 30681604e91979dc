"use strict";
// The kiosk page of emrtd serve (docs/kiosk.md). Access data lives only in the form fields and in the
// request that starts a read: never in a URL, in storage, in the console or in a global.
(() => {
  const $ = (id) => document.getElementById(id);
  const idleMs = 1000 * Math.min(3600, Math.max(5, Number(document.body.dataset.idleSeconds) || 60));
  const fields = ["mrz", "document-number", "date-of-birth", "date-of-expiry", "can"];
  let screen = "entry";        // entry | reading | result
  let readID = null;           // the read on screen (not personal: a random id)
  let generation = 0;          // bumped by clear(): late answers for a cleared read are dropped
  let readEvents = null;       // the read's EventSource
  let faceURL = null;          // the face's blob: URL, revoked on clear
  let idleTimer = null;
  let starting = false;        // a start is waiting for the service's check of the access data

  // ---- access data: shaped here (upper case, lines), judged by the service (POST /v1/access-data/check, which
  // runs the rules a read runs: AccessData.key). The page keeps no check-digit or date rules of its own.

  // The MRZ as lines: upper case, spaces dropped; one unbroken line of 88, 72 or 90 characters is split.
  function mrzLines(text) {
    let lines = text.toUpperCase().replace(/[ \t\r]/g, "").split("\n").filter((l) => l.length > 0);
    if (lines.length === 1) {
      const l = lines[0], n = { 88: 44, 72: 36, 90: 30 }[l.length];
      if (n) lines = l.match(new RegExp(".{" + n + "}", "g"));
    }
    return lines;
  }

  function value(id) { return $(id).value.trim(); }

  // The access data as entered (all kinds that were typed in: the service says when they conflict).
  function entered() {
    const access = {};
    const mrz = $("mrz").value.trim();
    if (mrz) access.mrz = mrzLines(mrz).join("");
    const n = value("document-number"), b = value("date-of-birth"), e = value("date-of-expiry");
    if (n) access.documentNumber = n.toUpperCase();
    if (b) access.dateOfBirth = b;
    if (e) access.dateOfExpiry = e;
    const can = value("can");
    if (can) access.can = can;
    return access;
  }

  // The service's answer: { valid, kind } or { valid: false, field, problem, message, missing },
  // or { unreachable: true } / { code } when it could not answer.
  async function checkAccess(access) {
    let res;
    try {
      res = await fetch("/v1/access-data/check", {
        method: "POST", cache: "no-store", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ access }),
      });
    } catch (_) {
      return { unreachable: true };
    }
    const j = await res.json().catch(() => null);
    if (res.ok && j && typeof j.valid === "boolean") return j;
    return { code: j && j.error ? j.error.code : "http_" + res.status, message: j && j.error ? j.error.message : "" };
  }

  const inputOf = { mrz: "mrz", documentNumber: "document-number", dateOfBirth: "date-of-birth",
                    dateOfExpiry: "date-of-expiry", can: "can" };
  const listOf = { mrz: "mrz-feedback", documentNumber: "details-feedback", dateOfBirth: "details-feedback",
                   dateOfExpiry: "details-feedback", can: "can-feedback" };
  const validText = { mrz: "The MRZ is complete and every check digit holds.",
                      details: "The document number and dates are complete.", can: "The CAN has its 6 digits." };

  function showFeedback(list, cls, text) {
    for (const l of ["mrz-feedback", "details-feedback", "can-feedback"]) {
      if (l !== list) $(l).replaceChildren();
    }
    if (!list) return;
    const li = document.createElement("li");
    li.className = cls;
    li.textContent = text;
    $(list).replaceChildren(li);
  }

  function markInvalid(field) {
    for (const [f, id] of Object.entries(inputOf)) $(id).setAttribute("aria-invalid", String(f === field));
  }

  // Live feedback while typing, from the service (debounced). Only what is complete is judged: a date or a CAN
  // still being typed, or the MRZ key's fields still missing, are not marked yet.
  let feedbackTimer = null;
  let feedbackRound = 0;
  function feedbackSoon() {
    if (feedbackTimer) clearTimeout(feedbackTimer);
    feedbackTimer = setTimeout(() => { feedbackTimer = null; feedback(); }, 250);
  }
  async function feedback() {
    const round = ++feedbackRound;
    const access = entered();
    if (Object.keys(access).length === 0) { showFeedback(null); markInvalid(null); return; }
    const r = await checkAccess(access);
    if (round !== feedbackRound || screen !== "entry") return;
    if (r.valid === true) {
      showFeedback(r.kind === "can" ? "can-feedback" : access.mrz ? "mrz-feedback" : "details-feedback", "ok",
                   validText[r.kind === "can" ? "can" : access.mrz ? "mrz" : "details"]);
      markInvalid(null);
      return;
    }
    if (r.valid !== false) { showFeedback(null); return; }  // no answer: the Start button will say why
    const typing = r.problem === "missing" ||
      (["dateOfBirth", "dateOfExpiry", "can"].includes(r.field) && (access[r.field] || "").length < 6);
    if (typing) { showFeedback(null); markInvalid(null); return; }
    showFeedback(listOf[r.field] || "mrz-feedback", "bad", r.message);
    markInvalid(r.field);
  }

  // ---- screens, errors, idle time

  function setScreen(name) {
    screen = name;
    $("entry").hidden = name !== "entry";
    $("reading").hidden = name !== "reading";
    $("after").hidden = name === "entry" && !hasContent();
    arm();
  }
  function hasContent() {
    return fields.some((f) => $(f).value !== "") || !$("error").hidden || readID !== null;
  }
  function showError(text) {
    $("error").textContent = text;
    $("error").hidden = false;
    $("after").hidden = false;
    arm();
  }
  function clearError() {
    $("error").textContent = "";
    $("error").hidden = true;
  }
  // The idle timer runs while something a person left behind is on screen (never while a read runs:
  // the read has its own wait time).
  function arm() {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (screen !== "reading" && hasContent()) idleTimer = setTimeout(clear, idleMs);
  }

  const messages = {
    access_control_failed: "The document did not accept the access data. Check the MRZ (or the CAN) and try again.",
    card_removed: "The document was taken off the reader before the read finished. Start again and leave it on the reader until the result shows.",
    timeout: "No document was placed on the reader in time. Start again when the document is at hand.",
    reader_unavailable: "The reader is not available. Check that it is plugged in, then start again.",
    transport: "The document could not be read. Place it again, flat and still, and start again.",
    chip: "The document's chip answered in a way that could not be read. Start again; if it happens again, ask staff.",
    cancelled: "The read was cancelled.",
    reader_busy: "The reader is busy with another read. Wait a moment and start again.",
    ambiguous_reader: "Choose the reader to use.",
    unknown_reader: "That reader is gone. Choose another reader.",
    no_reader: "No reader is connected.",
    unauthorized: "This page is not signed in to the service: open it through the kiosk launcher.",
    forbidden: "This page is not signed in to the service: open it through the kiosk launcher.",
    unreachable: "The service cannot be reached. Check that emrtd serve is running, then start again.",
    gone: "The service no longer knows this read (it was restarted or forgot it). Start again.",
  };
  function message(code, fallback) {
    return messages[code] || fallback || "Something went wrong (" + code + "). Start again.";
  }

  // A read ended without a result: back to the form, the access data kept for correcting it, the read deleted.
  function failed(code, detail) {
    const id = readID;
    closeEvents();
    readID = null;
    delete document.body.dataset.read;
    if (id) fetch("/v1/reads/" + encodeURIComponent(id), { method: "DELETE", cache: "no-store" }).catch(() => {});
    setScreen("entry");
    showError(message(code, detail));
    $(code === "access_control_failed" ? "mrz" : "start").focus();
  }

  function closeEvents() {
    if (readEvents) readEvents.close();
    readEvents = null;
  }

  // Next person (and the idle timer): everything personal leaves the page, the read is deleted.
  function clear() {
    generation++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    closeEvents();
    const id = readID;
    readID = null;
    delete document.body.dataset.read;
    if (id) fetch("/v1/reads/" + encodeURIComponent(id), { method: "DELETE", cache: "no-store" }).catch(() => {});
    $("result").replaceChildren();
    if (faceURL) URL.revokeObjectURL(faceURL);
    faceURL = null;
    for (const f of fields) {
      $(f).value = "";
      $(f).removeAttribute("aria-invalid");
    }
    for (const l of ["mrz-feedback", "details-feedback", "can-feedback"]) $(l).replaceChildren();
    feedbackRound++;
    stopCamera();
    clearError();
    setProgress({ percent: 0 });
    $("prompt").textContent = "Place the document on the reader";
    $("phase").textContent = "Waiting for the document…";
    setScreen("entry");
    $("mrz").focus();
  }

  // ---- a read

  function setProgress(p) {
    const pct = Math.max(0, Math.min(100, Number(p.percent) || 0));
    $("progress").value = pct;
    $("progress").textContent = pct + " %";
  }

  async function start(event) {
    event.preventDefault();
    begin();
  }

  // Starts a read with what the form holds (typed, or filled by the camera): the service checks it first.
  async function begin() {
    if (screen !== "entry" || starting) return;
    const access = entered();
    if (Object.keys(access).length === 0) {
      showError("Enter the MRZ, or the document number and dates, or the CAN.");
      $("mrz").focus();
      return;
    }
    starting = true;
    const gen = generation;
    const checked = await checkAccess(access);
    starting = false;
    if (screen !== "entry" || gen !== generation) return;
    if (checked.unreachable) { failed("unreachable"); return; }
    if (checked.valid === false) {
      showFeedback(listOf[checked.field] || "mrz-feedback", "bad", checked.message);
      markInvalid(checked.field || "mrz");
      showError(checked.message);
      $(inputOf[checked.field] || "mrz").focus();
      return;
    }
    if (checked.valid !== true) { failed(checked.code, checked.message); return; }
    const a = { access };
    clearError();
    const mine = ++generation;
    setProgress({ percent: 0 });
    $("prompt").textContent = "Place the document on the reader";
    $("phase").textContent = "Waiting for the document…";
    setScreen("reading");
    const request = { access: a.access };
    if ($("reader").value) request.reader = $("reader").value;
    let res, body;
    try {
      res = await fetch("/v1/reads", {
        method: "POST", cache: "no-store", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(request),
      });
      body = await res.json().catch(() => null);
    } catch (_) {
      if (mine === generation) failed("unreachable");
      return;
    }
    if (mine !== generation) {
      if (res.status === 201 && body && body.id) fetch("/v1/reads/" + encodeURIComponent(body.id), { method: "DELETE" }).catch(() => {});
      return;
    }
    if (res.status !== 201 || !body || !body.id) {
      const err = body && body.error ? body.error : { code: "http_" + res.status };
      failed(err.code, err.code === "bad_access" ? "The access data was refused: " + err.message + "." : undefined);
      return;
    }
    readID = body.id;
    document.body.dataset.read = readID;
    $("after").hidden = false;
    follow(mine);
  }

  function data(e) {
    try { return JSON.parse(e.data); } catch (_) { return {}; }
  }

  function follow(mine) {
    const es = new EventSource("/v1/reads/" + encodeURIComponent(readID) + "/events");
    readEvents = es;
    es.addEventListener("state", (e) => {
      const d = data(e);
      if (d.progress) setProgress(d.progress);
      if (d.cardPresent === true || d.status === "reading") present(true);
    });
    es.addEventListener("card", (e) => present(data(e).present === true));
    es.addEventListener("progress", (e) => {
      const d = data(e);
      setProgress(d);
      if (d.phase === "verifying") $("phase").textContent = "Checking the document's signatures…";
      else if (d.phase !== "resuming") $("phase").textContent = "Reading the document… " + $("progress").value + " %";
    });
    es.addEventListener("resumed", () => {
      $("prompt").textContent = "Keep the document on the reader";
      $("phase").textContent = "The document is back: the read continues where it stopped.";
    });
    es.addEventListener("result", () => {
      closeEvents();
      if (mine === generation) showResult(mine);
    });
    es.addEventListener("error", (e) => {
      if (e instanceof MessageEvent && e.data) {
        // the read's outcome: an error event of the API
        closeEvents();
        if (mine === generation) { const d = data(e); failed(d.code || "unknown"); }
        return;
      }
      // the stream broke: ask the service what became of the read
      closeEvents();
      if (mine === generation) recover(mine);
    });
  }

  function present(yes) {
    if (yes) {
      $("prompt").textContent = "Keep the document on the reader";
      $("phase").textContent = "Reading the document… " + $("progress").value + " %";
    } else {
      $("prompt").textContent = "Put the document back on the reader";
      $("phase").textContent = "The document was removed: the read continues when it is back.";
    }
  }

  async function recover(mine) {
    let res;
    try {
      res = await fetch("/v1/reads/" + encodeURIComponent(readID), { cache: "no-store" });
    } catch (_) {
      if (mine === generation) failed("unreachable");
      return;
    }
    if (mine !== generation) return;
    if (res.status === 404) return failed("gone");
    const j = await res.json().catch(() => null);
    if (!res.ok || !j) return failed("http_" + res.status);
    if (j.status === "done") return showResult(mine);
    if (j.error) return failed(j.error.code);
    setTimeout(() => { if (mine === generation && readID) follow(mine); }, 1000);
  }

  async function showResult(mine) {
    const id = readID;
    let res, html;
    try {
      res = await fetch("/v1/reads/" + encodeURIComponent(id) + "/result.html", { cache: "no-store" });
      html = await res.text();
    } catch (_) {
      if (mine === generation) failed("unreachable");
      return;
    }
    if (mine !== generation) return;
    if (res.status === 404) return failed("gone");
    if (!res.ok) return failed("http_" + res.status);
    setProgress({ percent: 100 });
    // the HTML report's own markup, every value escaped by the service; the policy runs no inline script
    $("result").innerHTML = html;
    setScreen("result");
    $("next").focus();
    const img = $("face");
    if (!img) return;
    try {
      const res = await fetch("/v1/reads/" + encodeURIComponent(id) + "/face", { cache: "no-store" });
      if (!res.ok) throw new Error(String(res.status));
      const blob = await res.blob();
      if (mine !== generation) return;
      faceURL = URL.createObjectURL(blob);
      img.src = faceURL;
    } catch (_) {
      if (mine !== generation) return;
      const note = document.createElement("div");
      note.className = "noimage";
      note.textContent = "The face image cannot be shown";
      img.replaceWith(note);
    }
  }

  // ---- the camera: frames to POST /v1/mrz until one gives the MRZ, then the read starts as if it had been typed.
  // A frame lives in one canvas and one JPEG blob while it is sent; the canvas is wiped after each frame and
  // emptied when the camera stops. Nothing of a frame is kept.

  const scanSeconds = 30;      // then the camera stops and the person types
  const frameMs = 500;         // a frame every half second (the next one only after the previous answer)
  let scanning = null;         // { stream, canvas, until, timer }

  const cameraMessages = {
    none: "This browser gives the page no camera here (a camera needs the kiosk's own browser on this machine, " +
      "or https). Type the MRZ instead.",
    denied: "The camera may not be used (permission denied). Type the MRZ instead.",
    missing: "No camera was found. Type the MRZ instead.",
    failed: "The camera could not be started. Type the MRZ instead.",
    timeout: "No MRZ could be read from the camera in " + scanSeconds + " seconds. Type it instead, or scan " +
      "again with the photo page flat, well lit and filling the frame.",
    engine: "The service cannot read MRZs from the camera. Type the MRZ instead.",
  };

  async function scan() {
    if (screen !== "entry" || scanning) return;
    clearError();
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return scanFailed("none");
    const mine = generation;
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: false,
        video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1440 } },
      });
    } catch (e) {
      const name = e && e.name;
      return scanFailed(name === "NotAllowedError" || name === "SecurityError" ? "denied" :
        name === "NotFoundError" || name === "OverconstrainedError" ? "missing" : "failed");
    }
    if (mine !== generation || screen !== "entry" || scanning) {
      for (const t of stream.getTracks()) t.stop();
      return;
    }
    const s = { stream, canvas: document.createElement("canvas"), until: Date.now() + 1000 * scanSeconds, timer: null };
    scanning = s;
    const video = $("camera-view");
    video.srcObject = stream;
    $("camera").hidden = false;
    $("scan").hidden = true;
    $("camera-status").textContent = "Hold the photo page in front of the camera, the MRZ at the bottom in view.";
    document.body.dataset.scanning = "true";
    try { await video.play(); } catch (_) { /* muted inline video plays; a failure shows as no frames */ }
    s.timer = setTimeout(() => grab(s), frameMs);
  }

  function scanFailed(kind) {
    stopCamera();
    showError(cameraMessages[kind]);
    $("mrz").focus();
  }

  async function grab(s) {
    if (scanning !== s) return;
    if (Date.now() > s.until) return scanFailed("timeout");
    const began = Date.now();
    const video = $("camera-view");
    if (video.videoWidth > 0 && video.videoHeight > 0) {
      const c = s.canvas;
      c.width = video.videoWidth;
      c.height = video.videoHeight;
      const g = c.getContext("2d");
      g.drawImage(video, 0, 0, c.width, c.height);
      let blob = await new Promise((done) => c.toBlob(done, "image/jpeg", 0.92));
      g.clearRect(0, 0, c.width, c.height);
      if (scanning !== s) return;
      if (blob) {
        let res, body;
        try {
          res = await fetch("/v1/mrz", { method: "POST", cache: "no-store", headers: { "Content-Type": "image/jpeg" }, body: blob });
          body = await res.json().catch(() => null);
        } catch (_) {
          blob = null;
          if (scanning === s) { stopCamera(); showError(message("unreachable")); }
          return;
        }
        blob = null;
        if (scanning !== s) return;
        if (res.status === 200 && body && typeof body.mrz === "string") return found(body.mrz);
        const code = body && body.error ? body.error.code : "http_" + res.status;
        if (code === "unauthorized" || code === "forbidden") { stopCamera(); return showError(message(code)); }
        if (code === "mrz_engine_unavailable") return scanFailed("engine");
        $("camera-status").textContent = code === "mrz_unreadable"
          ? "The MRZ is in view: hold the page still and flat…"
          : "Looking for the MRZ: hold the photo page in front of the camera…";
      }
    }
    s.timer = setTimeout(() => grab(s), Math.max(0, frameMs - (Date.now() - began)));
  }

  // The camera off, the preview and the canvas emptied.
  function stopCamera() {
    const s = scanning;
    scanning = null;
    delete document.body.dataset.scanning;
    $("camera").hidden = true;
    $("scan").hidden = false;
    $("camera-status").textContent = "";
    const video = $("camera-view");
    video.pause();
    video.srcObject = null;
    if (!s) return;
    if (s.timer) clearTimeout(s.timer);
    for (const t of s.stream.getTracks()) t.stop();
    s.canvas.width = 0;
    s.canvas.height = 0;
  }

  // The MRZ from the camera: into the form, then the read starts as if it had been typed.
  function found(mrz) {
    stopCamera();
    for (const f of fields) $(f).value = "";
    $("mrz").value = mrz;
    feedbackRound++;
    showFeedback(null);
    markInvalid(null);
    begin();
  }

  // ---- readers

  async function loadReaders() {
    let res;
    try {
      res = await fetch("/v1/readers", { cache: "no-store" });
    } catch (_) {
      $("service-status").textContent = "Service unreachable";
      return;
    }
    if (res.status === 401 || res.status === 403) {
      $("service-status").textContent = "Not signed in: open this page through the kiosk launcher";
      return;
    }
    const j = await res.json().catch(() => null);
    if (!j || !Array.isArray(j.readers)) return;
    $("service-status").textContent = "Service ready";
    const select = $("reader");
    const chosen = select.value;
    const names = j.readers.map((r) => r.name);
    select.replaceChildren(...(names.length ? names : [""]).map((n) => {
      const o = document.createElement("option");
      o.value = n;
      o.textContent = n || "no reader";
      return o;
    }));
    if (names.includes(chosen)) select.value = chosen;
    else {
      const withCard = j.readers.find((r) => r.cardPresent);
      if (withCard) select.value = withCard.name;
    }
    const r = j.readers.find((x) => x.name === select.value);
    $("reader-status").textContent = !r ? "No reader connected" :
      r.busy ? "Reading" : r.cardPresent ? "Document on the reader" : "Ready, no document";
  }

  let readersTimer = null;
  function readersSoon() {
    if (readersTimer) return;
    readersTimer = setTimeout(() => { readersTimer = null; loadReaders(); }, 150);
  }

  function watchTerminal() {
    const es = new EventSource("/v1/events");
    es.addEventListener("open", () => loadReaders());
    for (const name of ["reader", "card", "read"]) es.addEventListener(name, readersSoon);
    es.addEventListener("error", () => {
      $("service-status").textContent = "Service unreachable — retrying";
      $("reader-status").textContent = "";
      if (es.readyState === EventSource.CLOSED) setTimeout(watchTerminal, 3000);
    });
  }

  // ---- wiring

  $("access-form").addEventListener("submit", start);
  $("next").addEventListener("click", clear);
  $("reader").addEventListener("change", loadReaders);
  for (const f of fields) $(f).addEventListener("input", () => {
    if (!$("error").hidden && screen === "entry") clearError();
    // input shaping only: upper case where the document prints upper case
    if (f === "mrz" || f === "document-number") {
      const el = $(f), at = el.selectionStart, up = el.value.toUpperCase();
      if (up !== el.value) { el.value = up; el.setSelectionRange(at, at); }
    }
    feedbackSoon();
    setScreen(screen);
  });
  $("scan").addEventListener("click", scan);
  $("scan-stop").addEventListener("click", () => { stopCamera(); $("mrz").focus(); });
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, arm, { passive: true });
  loadReaders();
  watchTerminal();
  $("mrz").focus();
})();
