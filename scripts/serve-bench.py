#!/usr/bin/env python3
"""Serve-mode latency and memory of `emrtd serve` (docs/performance.md, "Serve mode").

Runs `emrtd serve` and `emrtd simulate` (the virtual passport behind vsmartcard's vpcd) as separate
processes through pcscd, exactly as the integration tests do, and measures through the HTTP API:

  * idle resident memory of the service;
  * card presented -> first APDU and card presented -> result, against the read's own transport time
    (the service reports these per read in GET /v1/reads/{id} "timing": the moment pcscd reported the
    card, the first command sent, the result ready, and the time spent inside SCardTransmit);
  * resident memory before and after N reads through the API (POST, wait, GET report, GET face, DELETE).

Each presentation is a fresh one: before `emrtd simulate` puts the card on the reader, the script waits
until the service's own reader list (GET /v1/readers) says the previous card has left — pcscd notices a
card leaving only at its next poll, and a read started before that would find the old card "present".

Needs pcscd with the vpcd driver (started here, as the test suite does, when nothing answers on its
socket); hold the shared lock while it runs:
    flock /tmp/emrtd-pcsc.lock python3 scripts/serve-bench.py --emrtd .build/release/emrtd
"""
import argparse, json, os, platform, signal, socket, statistics, subprocess, sys, tempfile, time
import urllib.request, urllib.error

READER = "Virtual PCD 00 00"
PCSCD_SOCKET = "/run/pcscd/pcscd.comm"


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def pcscd_answers():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(PCSCD_SOCKET)
        return True
    except OSError:
        return False
    finally:
        s.close()


def ensure_pcscd():
    if pcscd_answers():
        return
    subprocess.Popen(["/usr/sbin/pcscd", "--foreground", "--auto-exit"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 10
    while not pcscd_answers():
        if time.time() > deadline:
            raise SystemExit("pcscd did not come up (is pcscd with vsmartcard-vpcd installed?)")
        time.sleep(0.1)
    time.sleep(1)  # let vpcd open its slots


class API:
    def __init__(self, port, token):
        self.base = f"http://127.0.0.1:{port}"
        self.token = token

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def read(self, mrz, wait=30, files=None):
        body = {"reader": READER, "access": {"mrz": mrz}, "waitSeconds": wait}
        if files:
            body["files"] = files
        status, raw = self.call("POST", "/v1/reads", body)
        if status != 201:
            raise SystemExit(f"POST /v1/reads: {status} {raw[:200]!r}")
        return json.loads(raw)["id"]

    def wait(self, rid, seconds=60):
        deadline = time.time() + seconds
        while time.time() < deadline:
            status, raw = self.call("GET", f"/v1/reads/{rid}")
            if status != 200:
                # a finished read is forgotten after --retention: this script keeps every read until it DELETEs it
                raise SystemExit(f"GET /v1/reads/{rid}: {status} {raw[:200]!r}")
            j = json.loads(raw)
            if j.get("status") in ("done", "failed", "cancelled"):
                return j
            time.sleep(0.01)
        raise SystemExit(f"read {rid} did not finish within {seconds} s")

    def card_present(self):
        status, raw = self.call("GET", "/v1/readers")
        for r in json.loads(raw).get("readers", []) if status == 200 else []:
            if r.get("name") == READER:
                return bool(r.get("cardPresent"))
        return None

    def wait_card(self, present, seconds=10):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.card_present() == present:
                return
            time.sleep(0.02)
        raise SystemExit(f"the service did not see the card {'arrive' if present else 'leave'} within {seconds} s")


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def stats(values):
    return {"median": statistics.median(values), "p95": pct(values, 95), "min": min(values), "max": max(values)}


def summary(name, values):
    return (f"{name:38s} median {statistics.median(values):8.2f} ms   p95 {pct(values, 95):8.2f} ms"
            f"   min {min(values):8.2f} ms   max {max(values):8.2f} ms")


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
            "load": os.getloadavg()[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emrtd", default=".build/release/emrtd")
    ap.add_argument("--profile", default="pace-gm-brainpool-aes128")
    ap.add_argument("--presentations", type=int, default=20, help="reads with a fresh card presentation each")
    ap.add_argument("--reads", type=int, default=1000, help="reads for the memory growth figure")
    ap.add_argument("--files", default="", help="comma-separated files for the memory run (default: all)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.presentations < 1 or a.reads < 1:
        raise SystemExit("--presentations and --reads must be 1 or more")
    emrtd = os.path.abspath(a.emrtd)
    ensure_pcscd()
    tmp = tempfile.mkdtemp(prefix="emrtd-serve-bench-")
    out = subprocess.run([emrtd, "simulate", "--profile", a.profile, "--save", tmp + "/doc"],
                         capture_output=True, text=True, check=True).stdout
    values = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    mrz, trust, folder = values["mrz"], values["trust"], values["folder"]

    # default retention (120 s) and finished-read limit: the script DELETEs every read itself, as a kiosk UI does
    serve = subprocess.Popen([emrtd, "serve", "--listen", "127.0.0.1:0", "--token-file", tmp + "/token", "--trust", trust,
                              "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = serve.stdout.readline()
    port = int(first.strip().rsplit(":", 1)[1])
    api = API(port, open(tmp + "/token").read().strip())
    sims = []

    def simulate(extra=()):
        p = subprocess.Popen([emrtd, "simulate", "--profile", folder, "--quiet"] + list(extra),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sims.append(p)
        return p

    def stop(p):
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    result = {"profile": a.profile, "machine": machine()}
    try:
        time.sleep(2)
        result["idleRSSKB"] = rss_kb(serve.pid)
        api.wait_card(False)

        # 1. card presented -> first APDU / result, each read with the card put on the reader afresh
        first_apdu, to_result, transport, overhead = [], [], [], []
        phases = {"connect": [], "chipRead": [], "chipRead - transport": [], "verify": [], "report": []}
        for _ in range(a.presentations):
            rid = api.read(mrz)
            time.sleep(0.2)  # the read is waiting for a card
            sim = simulate()
            j = api.wait(rid)
            stop(sim)
            if j["status"] != "done":
                raise SystemExit(f"read failed: {j.get('error')}")
            t = j["timing"]
            first_apdu.append(t["presentedToFirstAPDUMs"])
            to_result.append(t["presentedToResultMs"])
            transport.append(t["transportMs"])
            overhead.append(t["overheadMs"])
            for k in ("connect", "chipRead", "verify", "report"):
                phases[k].append(t["phasesMs"][k])
            phases["chipRead - transport"].append(t["phasesMs"]["chipRead"] - t["transportMs"])
            api.call("DELETE", f"/v1/reads/{rid}")
            api.wait_card(False)  # the card has left, as pcscd sees it, before the next presentation
        result["presentedToFirstAPDUMs"] = stats(first_apdu)
        result["presentedToResultMs"] = stats(to_result)
        result["transportMs"] = stats(transport)
        result["overheadMs"] = stats(overhead)
        result["phasesMs"] = {k: stats(v) for k, v in phases.items()}

        # 2. resident memory over N reads through the API (the card stays on the reader)
        files = [f for f in a.files.split(",") if f] or None
        sim = simulate()
        api.wait_card(True)

        def one():
            rid = api.read(mrz, files=files)
            j = api.wait(rid)
            if j["status"] != "done":
                raise SystemExit(f"read failed: {j.get('error')}")
            status, _ = api.call("GET", f"/v1/reads/{rid}/face")
            if files is None or "DG2" in files:
                if status != 200:
                    raise SystemExit(f"GET face: {status}")
            status, _ = api.call("DELETE", f"/v1/reads/{rid}")
            if status != 204:
                raise SystemExit(f"DELETE: {status}")

        for _ in range(20):
            one()
        time.sleep(1)
        before = rss_kb(serve.pid)
        started = time.time()
        for _ in range(a.reads):
            one()
        elapsed = time.time() - started
        time.sleep(1)
        after = rss_kb(serve.pid)
        stop(sim)
        result.update({"reads": a.reads, "files": files or "all", "rssBeforeKB": before, "rssAfterKB": after,
                       "growthKB": after - before, "secondsPerRead": elapsed / a.reads})
    finally:
        for p in sims:
            if p.poll() is None:
                stop(p)
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(5)
        except subprocess.TimeoutExpired:
            serve.kill()

    if a.json:
        print(json.dumps(result, indent=2))
    else:
        m = result["machine"]
        print(f"emrtd serve, profile {a.profile}; {m['cpu']}, {m['cores']} cores, load {m['load']:.1f}")
        print(f"idle RSS                               {result['idleRSSKB'] / 1024:8.1f} MB")
        print(summary("card presented -> first APDU", first_apdu))
        print(summary("card presented -> result", to_result))
        print(summary("  of which transport (SCardTransmit)", transport))
        print(summary("  result - transport (per read)", overhead))
        for k, v in phases.items():
            print(summary(f"    phase {k}", v))
        print(f"RSS before/after {a.reads} reads              {before / 1024:8.1f} MB -> {after / 1024:.1f} MB "
              f"(growth {(after - before) / 1024:.2f} MB, {elapsed / a.reads * 1000:.0f} ms per read)")


if __name__ == "__main__":
    main()
