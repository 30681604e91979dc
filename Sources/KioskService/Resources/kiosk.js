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

  // ---- ICAO 9303-3 §4.9: check digits, weights 7 3 1; 0-9 as is, A-Z = 10-35, < = 0
  function charValue(c) {
    const x = c.charCodeAt(0);
    if (x >= 48 && x <= 57) return x - 48;
    if (x >= 65 && x <= 90) return x - 55;
    return 0;
  }
  function checkDigit(s) {
    let sum = 0;
    for (let i = 0; i < s.length; i++) sum += charValue(s[i]) * [7, 3, 1][i % 3];
    return String(sum % 10);
  }
  function isDate(s) {
    if (!/^[0-9]{6}$/.test(s)) return false;
    const m = Number(s.slice(2, 4)), d = Number(s.slice(4, 6));
    return m >= 1 && m <= 12 && d >= 1 && d <= 31;
  }

  // The MRZ as lines: upper case, spaces dropped; one unbroken line of 88, 72 or 90 characters is split.
  function mrzLines(text) {
    let lines = text.toUpperCase().replace(/[ \t\r]/g, "").split("\n").filter((l) => l.length > 0);
    if (lines.length === 1) {
      const l = lines[0], n = { 88: 44, 72: 36, 90: 30 }[l.length];
      if (n) lines = l.match(new RegExp(".{" + n + "}", "g"));
    }
    return lines;
  }

  // Checks the MRZ's format and check digits, as a hint while typing: the service's rules (AccessData.key)
  // decide, and they refuse an MRZ any of whose check digits is wrong (a zone with a wrong optional-data or
  // composite digit was mistyped or misread, so its key may be wrong too). errors block the start.
  function checkMRZ(text) {
    const out = { errors: [], warnings: [], passed: [] };
    const lines = mrzLines(text);
    const lengths = lines.map((l) => l.length).join(", ");
    let kind = null;
    if (lines.length === 2 && lines[0].length === 44 && lines[1].length === 44) kind = "TD3";
    else if (lines.length === 2 && lines[0].length === 36 && lines[1].length === 36) kind = "TD2";
    else if (lines.length === 3 && lines.every((l) => l.length === 30)) kind = "TD1";
    if (!kind) {
      out.errors.push("The MRZ has 2 lines of 44 characters (passport), 2 lines of 36, or 3 lines of 30 " +
        "(identity card); this has " + lines.length + " line" + (lines.length === 1 ? "" : "s") +
        (lines.length ? " of " + lengths + " characters" : "") + ".");
      return out;
    }
    for (let i = 0; i < lines.length; i++) {
      const at = lines[i].search(/[^A-Z0-9<]/);
      if (at >= 0) {
        out.errors.push("Line " + (i + 1) + ", position " + (at + 1) +
          ": the MRZ holds only letters A–Z, digits and <.");
        return out;
      }
    }
    const check = (label, data, digit, optional, blocking) => {
      if (optional && digit === "<" && /^<*$/.test(data)) return;
      if (digit === checkDigit(data)) out.passed.push(label + ": check digit correct");
      else (blocking ? out.errors : out.warnings).push(label + ": the check digit does not match — " +
        "look for a mistyped character" + (blocking ? "" : " (the read can still be tried)") + ".");
    };
    const date = (label, s) => { if (!isDate(s)) out.errors.push(label + " is not a date (YYMMDD)."); };
    // a document number longer than 9 characters: '<' in the check digit's place, the rest and its
    // check digit at the start of the optional data (9303-5 §4.2.2, 9303-6 §4.2.2)
    const longNumber = (first, digitAt, rest) => {
      if (first[digitAt] !== "<") return [first.slice(0, digitAt), first[digitAt]];
      const ext = rest.split("<")[0];
      return [first.slice(0, digitAt) + ext.slice(0, -1), ext.slice(-1)];
    };
    if (kind === "TD1") {
      const [l1, l2] = lines;
      const [number, digit] = longNumber(l1.slice(5, 15), 9, l1.slice(15, 30));
      check("Document number", number, digit, false, true);
      date("The date of birth", l2.slice(0, 6));
      check("Date of birth", l2.slice(0, 6), l2[6], false, true);
      date("The date of expiry", l2.slice(8, 14));
      check("Date of expiry", l2.slice(8, 14), l2[14], false, true);
      check("Overall", l1.slice(5, 30) + l2.slice(0, 7) + l2.slice(8, 15) + l2.slice(18, 29), l2[29], false, true);
    } else {
      const l2 = lines[1], end = kind === "TD3" ? 43 : 35;
      const [number, digit] = kind === "TD2" ? longNumber(l2.slice(0, 10), 9, l2.slice(28, 35))
                                             : [l2.slice(0, 9), l2[9]];
      check("Document number", number, digit, false, true);
      date("The date of birth", l2.slice(13, 19));
      check("Date of birth", l2.slice(13, 19), l2[19], false, true);
      date("The date of expiry", l2.slice(21, 27));
      check("Date of expiry", l2.slice(21, 27), l2[27], false, true);
      if (kind === "TD3") check("Personal number", l2.slice(28, 42), l2[42], true, true);
      check("Overall", l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, end), l2[end], false, true);
    }
    return out;
  }

  function checkDetails(number, birth, expiry) {
    const out = { errors: [], warnings: [], passed: [] };
    const n = number.toUpperCase();
    if (!/^[A-Z0-9<]{1,22}$/.test(n)) out.errors.push("The document number holds 1 to 22 letters A–Z and digits.");
    else out.passed.push("Document number: format correct (check digit " + checkDigit(n.padEnd(9, "<")) + ")");
    for (const [label, v] of [["date of birth", birth], ["date of expiry", expiry]]) {
      if (!isDate(v)) out.errors.push("The " + label + " is 6 digits: year, month, day (YYMMDD).");
      else out.passed.push("The " + label + ": format correct (check digit " + checkDigit(v) + ")");
    }
    return out;
  }

  function checkCAN(can) {
    const out = { errors: [], warnings: [], passed: [] };
    if (!/^[0-9]{6}$/.test(can)) out.errors.push("The CAN is the 6 digits printed on the card.");
    else out.passed.push("CAN: 6 digits");
    return out;
  }

  function showFeedback(list, result) {
    const items = [];
    for (const t of result.errors) items.push(["bad", t]);
    for (const t of result.warnings) items.push(["warn", t]);
    for (const t of result.passed) items.push(["ok", t]);
    $(list).replaceChildren(...items.map(([cls, text]) => {
      const li = document.createElement("li");
      li.className = cls;
      li.textContent = text;
      return li;
    }));
  }

  function value(id) { return $(id).value.trim(); }

  // Live feedback while typing (nothing is sent).
  function feedback() {
    const mrz = $("mrz").value;
    const r1 = mrz.trim() ? checkMRZ(mrz) : { errors: [], warnings: [], passed: [] };
    showFeedback("mrz-feedback", r1);
    $("mrz").setAttribute("aria-invalid", String(r1.errors.length > 0));
    const n = value("document-number"), b = value("date-of-birth"), e = value("date-of-expiry");
    const anyDetail = n || b || e;
    const r2 = anyDetail ? checkDetails(n, b, e) : { errors: [], warnings: [], passed: [] };
    // while typing, only complete fields are judged
    if (anyDetail) {
      r2.errors = r2.errors.filter((t) => (t.includes("document number") && n) ||
        (t.includes("birth") && b.length >= 6) || (t.includes("expiry") && e.length >= 6));
    }
    showFeedback("details-feedback", r2);
    $("document-number").setAttribute("aria-invalid", String(r2.errors.some((t) => t.includes("document number"))));
    $("date-of-birth").setAttribute("aria-invalid", String(r2.errors.some((t) => t.includes("birth"))));
    $("date-of-expiry").setAttribute("aria-invalid", String(r2.errors.some((t) => t.includes("expiry"))));
    const c = value("can");
    const r3 = c.length >= 6 ? checkCAN(c) : { errors: [], warnings: [], passed: [] };
    showFeedback("can-feedback", r3);
    $("can").setAttribute("aria-invalid", String(r3.errors.length > 0));
  }

  // The access data of the one kind that was entered, or the reason there is none.
  function accessData() {
    const mrz = $("mrz").value.trim();
    const n = value("document-number"), b = value("date-of-birth"), e = value("date-of-expiry");
    const can = value("can");
    const kinds = [mrz ? "mrz" : null, n || b || e ? "details" : null, can ? "can" : null].filter(Boolean);
    if (kinds.length === 0) return { error: "Enter the MRZ, or the document number and dates, or the CAN.", focus: "mrz" };
    if (kinds.length > 1) return { error: "Enter only one of them: the MRZ, the document number and dates, or the CAN.", focus: "mrz" };
    if (kinds[0] === "mrz") {
      const r = checkMRZ(mrz);
      if (r.errors.length) return { error: "Check the MRZ: " + r.errors[0], focus: "mrz" };
      return { access: { mrz: mrzLines(mrz).join("") } };
    }
    if (kinds[0] === "details") {
      const r = checkDetails(n, b, e);
      if (r.errors.length) {
        const focus = !/^[A-Z0-9<]{1,22}$/i.test(n) ? "document-number" : !isDate(b) ? "date-of-birth" : "date-of-expiry";
        return { error: r.errors[0], focus };
      }
      return { access: { documentNumber: n.toUpperCase(), dateOfBirth: b, dateOfExpiry: e } };
    }
    const r = checkCAN(can);
    if (r.errors.length) return { error: r.errors[0], focus: "can" };
    return { access: { can } };
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
    if (screen !== "entry") return;
    const a = accessData();
    if (a.error) {
      feedback();
      showError(a.error);
      $(a.focus).focus();
      return;
    }
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
    feedback();
    setScreen(screen);
  });
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, arm, { passive: true });
  loadReaders();
  watchTerminal();
  $("mrz").focus();
})();
